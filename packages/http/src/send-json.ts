import type { ServerResponse } from "node:http";

/** Answers with a JSON body (plain node:http): the one JSON writer of every route. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  response.end(text);
}
