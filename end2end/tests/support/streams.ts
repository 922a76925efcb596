import type { Page } from "@playwright/test";

/**
 * Keeps the page's EventSources in `window.__sources` so a test can cut one
 * the way a dropped connection does. With `dropDelta: n`, one `item.delta`
 * (the n-th a stream delivers) never reaches the page, as a lost event
 * would; `window.__dropped` turns 1 when it happened.
 */
export async function watchEventSources(page: Page, options: { dropDelta?: number } = {}) {
  await page.addInitScript((dropDelta: number) => {
    const Native = window.EventSource;
    const w = window as any;
    w.__sources = [];
    w.__dropped = 0;
    window.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        w.__sources.push(this);
      }
      addEventListener(type: string, listener: any, options?: any) {
        let deltas = 0;
        const filtered = (event: Event) => {
          if (type === "item.delta" && ++deltas === dropDelta && w.__dropped === 0) {
            w.__dropped = 1;
            return;
          }
          listener(event);
        };
        super.addEventListener(type, filtered, options);
      }
    };
  }, options.dropDelta ?? 0);
}
