import type { Page } from "@playwright/test";

/**
 * Records every `new Notification(...)` in `window.__notes` (title, body,
 * and the notification itself, whose `onclick` a test can call as a click
 * would). With `unavailable`, the page has no Notification API at all.
 */
export async function recordNotifications(page: Page, options: { unavailable?: boolean } = {}) {
  await page.addInitScript((unavailable: boolean) => {
    const w = window as any;
    w.__notes = [];
    if (unavailable) {
      delete w.Notification;
      return;
    }
    const Native = window.Notification;
    class Recorded extends Native {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        w.__notes.push({ title, body: options?.body ?? "", note: this });
      }
    }
    Object.defineProperty(Recorded, "permission", { get: () => Native.permission });
    (Recorded as any).requestPermission = Native.requestPermission.bind(Native);
    w.Notification = Recorded;
  }, options.unavailable ?? false);
}

/** Makes the page believe it is in the background (or back), as a locked phone would. */
export async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((hidden) => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => (hidden ? "hidden" : "visible"),
    });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}
