import { RATE_WINDOW_MS } from "./limit-store.ts";

/**
 * For tests that read the current rate window or hold a lease: waits, when less than `roomMs` of
 * the window is left, for the next one to begin. A lease ends with the window its requests were
 * counted in, so a test that straddled a minute's end saw its lease end early and its counts move.
 */
export async function rateWindowRoom(roomMs = 5_000): Promise<void> {
  const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
  if (left < roomMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
