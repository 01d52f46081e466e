/** Server-sent events: frame encoding, and playing frames out with delays, cuts and abort detection. */
import type { ServerResponse } from 'node:http';

export interface Frame {
  text: string;
  /** A content chunk (word or tool-argument piece): delayed by chunkDelayMs and counted for cutAfter. */
  content: boolean;
}

/** `data: <json>` frame (OpenAI chat). */
export function dataFrame(payload: unknown, content = false): Frame {
  return { text: `data: ${JSON.stringify(payload)}\n\n`, content };
}

/** `event: <name>` + `data: <json>` frame (Anthropic, Responses). */
export function eventFrame(event: string, payload: unknown, content = false): Frame {
  return { text: `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`, content };
}

/**
 * Gemini API `?alt=sse`: `data: <compact JSON>` ended by CRLF CRLF, as Google's servers frame
 * events (no `event:`, no `[DONE]`; the stream ends by closing).
 */
export function geminiFrame(payload: unknown, content = false): Frame {
  return { text: `data: ${JSON.stringify(payload)}\r\n\r\n`, content };
}

export const DONE_FRAME: Frame = { text: 'data: [DONE]\n\n', content: false };

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

export interface PlayOptions {
  chunkDelayMs: number;
  cutAfter: number | null;
  headers: Record<string, string>;
  /** Called just before the socket is cut (to record the outcome first). */
  onCut?: (chunksSent: number) => void;
}

export interface PlayResult {
  outcome: 'ok' | 'cut' | 'aborted';
  chunksSent: number;
}

function waitOrClose(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once('close', done);
    function done(): void {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}

function writeThen(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text.length === 0 || res.destroyed) return resolve();
    res.write(text, () => resolve());
  });
}

/** Write `frames` as a 200 event stream. Frames with no delay between them go out in one write. */
export async function playStream(res: ServerResponse, frames: readonly Frame[], options: PlayOptions): Promise<PlayResult> {
  res.writeHead(200, { ...SSE_HEADERS, ...options.headers });
  let buffer = '';
  let sent = 0;
  for (const frame of frames) {
    if (frame.content) {
      if (options.cutAfter !== null && sent >= options.cutAfter) {
        await writeThen(res, buffer);
        options.onCut?.(sent);
        res.socket?.destroy();
        res.destroy();
        return { outcome: 'cut', chunksSent: sent };
      }
      if (options.chunkDelayMs > 0) {
        if (buffer.length > 0) res.write(buffer);
        buffer = '';
        await waitOrClose(res, options.chunkDelayMs);
      }
      if (res.destroyed) return { outcome: 'aborted', chunksSent: sent };
      sent += 1;
    }
    buffer += frame.text;
  }
  if (res.destroyed) return { outcome: 'aborted', chunksSent: sent };
  res.end(buffer);
  return { outcome: 'ok', chunksSent: sent };
}
