import { request, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayResponse, addHead } from "./gateway-response.ts";
import { listen, type Listening } from "./listen.ts";

/** Each case answers on its own path; the client reads the raw head lines and the status text. */
const cases: Record<string, (response: ServerResponse) => void> = {
  "/listed": (response) => {
    addHead(response, "x-request-id", "req_1");
    addHead(response, "x-ratelimit-limit-requests", "60");
    response.writeHead(200, { "content-type": "application/json", "content-length": 2 });
    response.end("{}");
  },
  "/stored-too": (response) => {
    addHead(response, "x-request-id", "req_2");
    response.setHeader("retry-after", "3");
    response.writeHead(429, { "content-type": "application/json" });
    response.end("{}");
  },
  "/given-wins": (response) => {
    addHead(response, "x-request-id", "req_3");
    addHead(response, "x-Override", "listed");
    response.writeHead(200, { "X-Override": "given" });
    response.end();
  },
  "/set-wins": (response) => {
    addHead(response, "x-override", "listed");
    response.setHeader("x-override", "set");
    response.end();
  },
  "/implicit": (response) => {
    addHead(response, "x-request-id", "req_4");
    response.statusCode = 201;
    response.end("made");
  },
  "/reason": (response) => {
    addHead(response, "x-request-id", "req_5");
    response.writeHead(200, "Fine", { "content-type": "text/plain" });
    response.end();
  },
  "/raw-pairs": (response) => {
    addHead(response, "x-request-id", "req_6");
    response.writeHead(200, ["content-type", "text/plain", "x-pair", "1"]);
    response.end();
  },
  "/invalid": (response) => {
    addHead(response, "x-bad", "a\r\nb");
    try {
      response.writeHead(200);
    } catch (error) {
      response.statusCode = 500;
      response.removeHeader("x-bad");
      response.end((error as { code?: string }).code ?? "thrown");
    }
  },
};

let http: Listening;
beforeAll(async () => {
  http = await listen((incoming, response) => cases[incoming.url ?? ""]!(response), 0, "127.0.0.1", { ServerResponse: GatewayResponse });
});
afterAll(() => http?.close(1_000));

function head(path: string): Promise<{ status: number; reason: string; fields: string[][]; body: string }> {
  return new Promise((resolve, reject) => {
    request(`${http.url}${path}`, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        const fields: string[][] = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2) {
          const name = response.rawHeaders[index]!.toLowerCase();
          if (name !== "date" && name !== "connection" && name !== "keep-alive" && name !== "transfer-encoding") fields.push([name, response.rawHeaders[index + 1]!]);
        }
        resolve({ status: response.statusCode!, reason: response.statusMessage!, fields, body });
      });
    })
      .on("error", reject)
      .end();
  });
}

describe("GatewayResponse", () => {
  it("writes listed fields first, then the ones given to writeHead", async () => {
    expect((await head("/listed")).fields).toEqual([["x-request-id", "req_1"], ["x-ratelimit-limit-requests", "60"], ["content-type", "application/json"], ["content-length", "2"]]);
  });

  it("writes listed fields beside stored ones when setHeader was used", async () => {
    const answer = await head("/stored-too");
    expect(answer.status).toBe(429);
    expect(answer.fields).toEqual([["x-request-id", "req_2"], ["retry-after", "3"], ["content-type", "application/json"]]);
  });

  it("lets a field given to writeHead or set by setHeader win over a listed one of the same name", async () => {
    expect((await head("/given-wins")).fields).toEqual([["x-request-id", "req_3"], ["x-override", "given"]]);
    expect((await head("/set-wins")).fields).toEqual([["x-override", "set"], ["content-length", "0"]]);
  });

  it("writes them with an implicit head, a status text, or raw pairs", async () => {
    const implicit = await head("/implicit");
    expect([implicit.status, implicit.body]).toEqual([201, "made"]);
    expect(implicit.fields).toEqual([["x-request-id", "req_4"], ["content-length", "4"]]);
    const reason = await head("/reason");
    expect([reason.status, reason.reason]).toEqual([200, "Fine"]);
    expect(reason.fields).toEqual([["x-request-id", "req_5"], ["content-type", "text/plain"]]);
    expect((await head("/raw-pairs")).fields).toEqual([["x-request-id", "req_6"], ["content-type", "text/plain"], ["x-pair", "1"]]);
  });

  it("validates listed fields as setHeader does", async () => {
    const answer = await head("/invalid");
    expect([answer.status, answer.body]).toEqual([500, "ERR_INVALID_CHAR"]);
  });
});
