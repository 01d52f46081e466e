// The little of HTTP/1.1 framing the scaling step's own client and upstream need (lean-load.ts,
// recorded-upstream.ts): where a message's head ends and how long its body is. Both ends are the
// bench's own, so only what they send is read: a head, then a body of `content-length` bytes.
// Anything else (a chunked body, a head without a length on a message that has a body) is refused
// by the caller, never guessed at.

const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)[ \t]*(?=\r\n)/i;
const CHUNKED = /\r\ntransfer-encoding:[^\r]*chunked/i;

/** One message at the start of a buffer: its head's text and where the whole message ends. */
export interface Framed {
  head: string;
  /** Offset just past the message's body. */
  end: number;
}

/**
 * The message at `bytes[start...]`, or null while its head or body is still incomplete. Throws on a
 * chunked body or, when `bodyless` says a message without a length has none, on a head without
 * `content-length` where one is required (`bodyless` false).
 */
export function frameAt(bytes: Buffer, start: number, bodyless: (head: string) => boolean): Framed | null {
  const headEnd = bytes.indexOf(HEAD_END, start);
  if (headEnd === -1) return null;
  const head = bytes.toString("latin1", start, headEnd + 2);
  if (CHUNKED.test(head)) throw new Error("a chunked body (only content-length framing is read)");
  const length = CONTENT_LENGTH.exec(head);
  if (length === null && !bodyless(head)) throw new Error("a message without content-length");
  const end = headEnd + 4 + (length ? Number(length[1]) : 0);
  return end <= bytes.length ? { head, end } : null;
}

/** The status code of a response head (`HTTP/1.1 200 OK`), NaN when it is not one. */
export function statusOf(head: string): number {
  return head.startsWith("HTTP/1.") ? Number(head.slice(9, 12)) : Number.NaN;
}

/** Bytes not yet read, kept with what arrives next (one buffer while messages end on read boundaries). */
export class ReadBuffer {
  private bytes: Buffer = Buffer.alloc(0);
  private start = 0;

  push(chunk: Buffer): void {
    this.bytes = this.start < this.bytes.length ? Buffer.concat([this.bytes.subarray(this.start), chunk]) : chunk;
    this.start = 0;
  }

  /** The next whole message, or null until it has arrived; consumed once returned. */
  next(bodyless: (head: string) => boolean): Framed | null {
    if (this.start >= this.bytes.length) return null;
    const framed = frameAt(this.bytes, this.start, bodyless);
    if (framed === null) return null;
    this.start = framed.end;
    return framed;
  }
}
