import type { Dispatcher } from "undici";
import type { RequestTarget } from "./request-target.ts";

export interface StreamTiming {
  /** Request sent -> first body byte (the first SSE event). */
  firstByteMs: number;
  /** Request sent -> last body byte. */
  totalMs: number;
}

export type StreamOutcome = { ok: true; timing: StreamTiming } | { ok: false; error: string };

/**
 * One streamed request, timed at its first and last body byte (autocannon cannot see the first).
 * A stream is complete only when its API's terminal event arrived; anything else is an error.
 */
export async function timedStream(
  dispatcher: Dispatcher,
  target: RequestTarget,
  marker: string,
  hooks: { onOpen?: () => void; onClose?: () => void } = {},
): Promise<StreamOutcome> {
  const url = new URL(target.url);
  const started = performance.now();
  let opened = false;
  try {
    const response = await dispatcher.request({ origin: url.origin, path: url.pathname, method: "POST", headers: target.headers, body: target.body });
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      return { ok: false, error: `status ${response.statusCode}: ${text.slice(0, 120)}` };
    }
    opened = true;
    hooks.onOpen?.();
    let firstByteMs = Number.NaN;
    let tail = "";
    for await (const chunk of response.body) {
      if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
      // Only the end matters: keep the last few hundred characters to find the terminal event.
      tail = (tail + (chunk as Buffer).toString("latin1")).slice(-256);
    }
    const totalMs = performance.now() - started;
    if (!tail.includes(marker)) return { ok: false, error: `stream ended without "${marker}"` };
    return { ok: true, timing: { firstByteMs, totalMs } };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  } finally {
    if (opened) hooks.onClose?.();
  }
}
