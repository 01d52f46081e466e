import type { IncomingMessage } from "node:http";

/**
 * The rest of a request body the server will not use (the request was refused before it: no key,
 * a bad one, over a limit), dropped as it arrives, never buffered or parsed. Reading it keeps the
 * connection usable for the client's next request and lets it read the answer (closing a socket
 * with unread data resets it, and the client may lose the answer); a client still sending after
 * `maxBytes` more or `graceMs` is cut, so a refused upload cannot hold a socket open.
 */
export function discardBody(request: IncomingMessage, maxBytes: number, graceMs: number): void {
  if (request.complete || request.destroyed) return;
  let size = 0;
  const cut = () => {
    clearTimeout(timer);
    request.destroy();
  };
  const timer = setTimeout(cut, graceMs);
  timer.unref();
  request.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) cut();
  });
  const stop = () => clearTimeout(timer);
  request.once("end", stop);
  request.once("close", stop);
  // An earlier reader may have paused it (a `readable` listener): flow again, to nowhere.
  request.resume();
}
