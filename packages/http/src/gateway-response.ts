import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from "node:http";

/**
 * The proxy's response (its server's `ServerResponse` class). Head fields the hot path knows
 * before the status (the request id, the `x-ratelimit-*` headers) are listed by `addHead` and
 * written with the head instead of being stored one `setHeader` at a time: Node then takes its own
 * fast path (`writeHead` with an array when nothing is stored): no header dictionary, no
 * `[name, value]` pair per field, no lower-casing; each field is still validated once, as
 * `setHeader` would. When something did use `setHeader` (an error's `retry-after`, the dropped
 * parameters), the listed fields are stored just before it, so the head is the same either way.
 * Fields given to `writeHead` win over listed ones of the same name, as they win over stored ones.
 */
export class GatewayResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  private head: string[] | null = null;
  /** Whether `setHeader` or `appendHeader` stored anything (then Node's stored-headers path is taken). */
  private stored = false;

  /** A head field written with the status, as `setHeader` would (stored at once once anything is). */
  addHead(name: string, value: string): void {
    if (this.stored) super.setHeader(name, value);
    else (this.head ??= []).push(name, value);
  }

  override setHeader(name: string, value: number | string | readonly string[]): this {
    this.storeListed();
    return super.setHeader(name, value);
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    this.storeListed();
    return super.appendHeader(name, value);
  }

  /**
   * From the first stored header on, the listed fields are stored too, before it: the head keeps
   * the order the fields came in, and a later `setHeader` of a listed name replaces it.
   */
  private storeListed(): void {
    this.stored = true;
    const head = this.head;
    if (head === null) return;
    this.head = null;
    for (let index = 0; index < head.length; index += 2) super.setHeader(head[index]!, head[index + 1]!);
  }

  override writeHead(statusCode: number, reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    const head = this.head;
    const reason = typeof reasonOrHeaders === "string" ? reasonOrHeaders : undefined;
    const given = typeof reasonOrHeaders === "string" ? maybeHeaders : reasonOrHeaders;
    if (head === null) return this.writeHeadAs(statusCode, reason, given);
    if (Array.isArray(given)) {
      // Raw pairs go to Node's stored-headers path: the listed fields are stored first.
      this.storeListed();
      return this.writeHeadAs(statusCode, reason, given);
    }
    this.head = null;
    if (given !== undefined) {
      for (const name in given) {
        const value = given[name];
        if (value === undefined) continue;
        dropListed(head, name);
        if (Array.isArray(value)) for (const one of value) head.push(name, String(one));
        else head.push(name, String(value));
      }
    }
    return this.writeHeadAs(statusCode, reason, head);
  }

  private writeHeadAs(statusCode: number, reason: string | undefined, headers: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined): this {
    return reason === undefined ? super.writeHead(statusCode, headers) : super.writeHead(statusCode, reason, headers);
  }
}

/** Removes a listed field of this name (any case), which a field given to `writeHead` replaces. */
function dropListed(head: string[], name: string): void {
  for (let index = 0; index < head.length; index += 2) {
    const listed = head[index]!;
    if (listed.length === name.length && listed.toLowerCase() === name.toLowerCase()) {
      head.splice(index, 2);
      index -= 2;
    }
  }
}

/** `addHead` on the proxy's responses, `setHeader` on any other (an Express app's). */
export function addHead(response: ServerResponse, name: string, value: string): void {
  if (response instanceof GatewayResponse) response.addHead(name, value);
  else response.setHeader(name, value);
}
