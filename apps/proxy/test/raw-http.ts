import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { expect } from "vitest";

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A raw HTTP call: the path goes out exactly as written (fetch would resolve `..` and `//`). */
export function call(base: string, method: string, path: string, options: { headers?: Record<string, string>; body?: string | Buffer[] } = {}): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, method, path, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, headers: response.headers, body, text: body.toString("utf8") });
      });
    });
    request.on("error", reject);
    if (Array.isArray(options.body)) for (const chunk of options.body) request.write(chunk);
    else if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

export const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
export const json = (value: string) => ({ ...bearer(value), "content-type": "application/json" });

/** The one envelope, whose request_id is the id in the header the client saw. */
export function expectEnvelope(answer: Answer, status: number, type: string, code: string): void {
  expect(answer.status).toBe(status);
  expect(JSON.parse(answer.text)).toMatchObject({ type: "error", error: { type, code }, request_id: answer.headers["x-request-id"] });
  expect(answer.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{32}$/);
}
