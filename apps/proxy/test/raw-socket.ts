import { connect, type Socket } from "node:net";
import { once } from "node:events";

/**
 * A client on a bare TCP socket, for what HTTP clients will not do: stop in the middle of a head,
 * trickle a body, keep sending after the answer, leave at an exact point. Everything the server
 * sends is kept; write errors (the server cut the connection) are the test's to read, not throws.
 */
export class RawSocket {
  readonly socket: Socket;
  /** Resolves once the connection is closed, by either side. */
  readonly closed: Promise<void>;
  private received = Buffer.alloc(0);
  private writeFailed = false;

  constructor(base: string) {
    const { hostname, port } = new URL(base);
    this.socket = connect(Number(port), hostname);
    this.socket.on("data", (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
    });
    this.socket.on("error", () => {
      this.writeFailed = true;
    });
    this.closed = new Promise((resolve) => this.socket.once("close", () => resolve()));
  }

  static async open(base: string): Promise<RawSocket> {
    const raw = new RawSocket(base);
    await once(raw.socket, "connect");
    return raw;
  }

  /** Writes, waiting while the socket's buffer is full; false once the server has cut the connection. */
  async write(data: string | Buffer): Promise<boolean> {
    if (this.writeFailed || this.socket.destroyed) return false;
    if (!this.socket.write(data)) {
      // `once` rejects on the socket's error (the server reset it): that is a cut, read below.
      await Promise.race([once(this.socket, "drain").catch(() => undefined), this.closed]);
    }
    return !this.writeFailed && !this.socket.destroyed;
  }

  /** The text received so far. */
  text(): string {
    return this.received.toString("latin1");
  }

  /** The response's status code, once its status line came. */
  status(): number | null {
    const match = /^HTTP\/1\.1 (\d{3})/.exec(this.text());
    return match ? Number(match[1]) : null;
  }

  /** The response's body (after the head), as received so far. */
  body(): string {
    const text = this.text();
    const end = text.indexOf("\r\n\r\n");
    return end === -1 ? "" : text.slice(end + 4);
  }

  abort(): void {
    this.socket.destroy();
  }
}

/** A request head, ending with the blank line. */
export function requestHead(method: string, path: string, headers: Record<string, string>): string {
  const lines = [`${method} ${path} HTTP/1.1`, "host: 127.0.0.1", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join("\r\n")}\r\n\r\n`;
}
