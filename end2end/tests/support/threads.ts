// Threads and turns through the /v1 API, for tests that need data before
// they open a page.

import { expect, type Page } from "@playwright/test";
import type { Api } from "./api";

const ACTIVE = ["queued", "in_progress"];

/** `POST /v1/threads`; returns the thread record. */
export async function createThread(api: Api, page: Page, request: object = {}): Promise<any> {
  const { status, json } = await api(page, "POST", "/v1/threads", request);
  expect(status, JSON.stringify(json)).toBe(201);
  return json;
}

/** `POST /v1/threads/{id}/turns`; returns the turn record (still running). */
export async function startTurn(api: Api, page: Page, threadId: string, prompt: string): Promise<any> {
  const { status, json } = await api(page, "POST", `/v1/threads/${threadId}/turns`, { prompt });
  expect(status, JSON.stringify(json)).toBe(201);
  return json.turn;
}

/** Polls `GET /v1/threads/{id}` until the turn has ended; returns its record. */
export async function waitForTurn(api: Api, page: Page, threadId: string, turnId: string, timeout = 20_000): Promise<any> {
  let turn: any;
  await expect
    .poll(
      async () => {
        const { json } = await api(page, "GET", `/v1/threads/${threadId}`);
        turn = json?.turns?.find((t: any) => t.id === turnId);
        return turn && !ACTIVE.includes(turn.status) ? turn.status : "running";
      },
      { timeout, intervals: [100, 200, 500] },
    )
    .not.toBe("running");
  return turn;
}

/** Starts a turn and waits for it to complete (a failed turn fails the test). */
export async function runTurn(api: Api, page: Page, threadId: string, prompt: string, timeout?: number): Promise<any> {
  const started = await startTurn(api, page, threadId, prompt);
  const turn = await waitForTurn(api, page, threadId, started.id, timeout);
  expect(turn.status, turn.error ?? "").toBe("completed");
  return turn;
}
