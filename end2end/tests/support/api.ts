// Calls to codewhale's /v1 API from a test, authenticated by the page's
// session cookie. page.request shares the browser context's cookies, so the
// call is whoever the page is signed in as.

import type { Page } from "@playwright/test";

export type ApiResponse<T = any> = { status: number; json: T };

/** `api(page, "POST", "/v1/threads", {})`. */
export type Api = <T = any>(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
) => Promise<ApiResponse<T>>;

/**
 * Cookie-authenticated /v1 requests must look same-origin (server/src/auth/
 * credentials.rs: `Sec-Fetch-Site: same-origin`, and an `Origin` equal to
 * the web origin on anything but GET/HEAD/OPTIONS), as the browser's own
 * fetches do.
 */
export function apiFor(origin: string): Api {
  return async (page, method, path, body) => {
    const response = await page.request.fetch(new URL(path, origin).toString(), {
      method,
      headers: {
        Origin: origin,
        "Sec-Fetch-Site": "same-origin",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      data: body === undefined ? undefined : JSON.stringify(body),
      failOnStatusCode: false,
    });
    const text = await response.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { unparsed: text };
    }
    return { status: response.status(), json };
  };
}
