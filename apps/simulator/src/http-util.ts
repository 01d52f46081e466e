/** Small helpers over node:http. */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export class BodyTooLargeError extends Error {}

/** The whole request body (rejects past `limit` bytes). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError(`body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Resolves after `ms` (immediately for 0). */
export function sleep(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Destroy the connection abruptly (TCP RST where supported). */
export function resetSocket(req: IncomingMessage): void {
  const socket = req.socket;
  if (typeof socket.resetAndDestroy === 'function' && !socket.destroyed) {
    try {
      socket.resetAndDestroy();
      return;
    } catch {
      // fall through to a plain destroy
    }
  }
  socket.destroy();
}
