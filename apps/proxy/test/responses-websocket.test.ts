import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request as httpRequest } from "node:http";
import OpenAI from "openai";
import { ResponsesWS } from "openai/resources/responses/ws";
import { WebSocket } from "ws";
import { startStateStack, type StateStack } from "./responses-state-stack.ts";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy } from "../src/server.ts";

/**
 * Responses over WebSocket on GET /v1/responses (contract section 18, issue 37), with the official
 * `openai` SDK's ResponsesWS: several responses on one socket, `previous_response_id` across them,
 * each billed once like HTTP; bad frames answered with an `error` frame on a socket that stays
 * open; a revoked key's next frame refused; an oversized frame closes with 1009.
 */
const BODY_LIMIT = 256 * 1024;
let stack: StateStack;

beforeAll(async () => {
  stack = await startStateStack({ BODY_LIMIT_BYTES: String(BODY_LIMIT) });
});
afterAll(async () => stack?.close());

type ServerEvent = { type: string; response?: OpenAI.Responses.Response; error?: { code?: string; message?: string }; status?: number };

/** A socket's server events, read one response (up to its final event) or one error frame at a time. */
function reader(socket: ResponsesWS) {
  const events: ServerEvent[] = [];
  const waiters: (() => void)[] = [];
  socket.on("event", (event) => {
    events.push(event as ServerEvent);
    waiters.splice(0).forEach((wake) => wake());
  });
  socket.on("error", () => undefined);
  return async function next(): Promise<ServerEvent[]> {
    const taken: ServerEvent[] = [];
    const deadline = Date.now() + 5_000;
    for (;;) {
      while (events.length > 0) {
        const event = events.shift()!;
        taken.push(event);
        if (["response.completed", "response.incomplete", "response.failed", "error"].includes(event.type)) return taken;
      }
      if (Date.now() > deadline) throw new Error(`no final event; got ${taken.map((event) => event.type).join(",")}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
}

const textOf = (response: OpenAI.Responses.Response) =>
  response.output.flatMap((item) => (item.type === "message" ? item.content : [])).map((part) => (part.type === "output_text" ? part.text : "")).join("");

async function ledgerRows(keyId: string, count: number) {
  const prisma = stack.controlPlane.services.db.prisma;
  const deadline = Date.now() + 5_000;
  for (;;) {
    const rows = await prisma.usageRecord.findMany({ where: { apiKeyId: keyId } });
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(["gpt-test", "claude-test"])("Responses over WebSocket on %s", (model) => {
  it("two responses on one socket, the second continuing the first; bad frames get error frames and the socket stays open; each response billed once", async () => {
    const { id, openai } = await stack.client();
    const socket = new ResponsesWS(openai);
    const next = reader(socket);
    socket.send({ type: "response.create", model, input: "The password is swordfish." } as never);
    const first = await next();
    expect(first.map((event) => event.type)).toEqual(expect.arrayContaining(["response.created", "response.output_text.delta", "response.completed"]));
    const firstResponse = first.at(-1)!.response!;

    socket.sendRaw("this is not JSON");
    const notJson = await next();
    expect(notJson.at(-1)).toMatchObject({ type: "error", status: 400, error: { code: "invalid_body" } });
    socket.send({ type: "session.update" } as never);
    expect((await next()).at(-1)).toMatchObject({ type: "error", error: { code: "invalid_body", param: "type" } });
    socket.send({ type: "response.create", model, previous_response_id: "resp_unknown", input: "x" } as never);
    expect((await next()).at(-1)).toMatchObject({ type: "error", status: 400, error: { code: "previous_response_not_found", param: "previous_response_id" } });

    stack.simulator.stats.clear();
    socket.send({ type: "response.create", model, previous_response_id: firstResponse.id, input: "What is the password?" } as never);
    const second = (await next()).at(-1)!;
    expect(second.type).toBe("response.completed");
    expect(textOf(second.response!).length).toBeGreaterThan(0);
    expect(JSON.stringify(stack.simulator.stats.requests.at(-1)!.body)).toContain("swordfish");
    // Stored as over HTTP.
    expect((await openai.responses.retrieve(second.response!.id)).previous_response_id).toBe(firstResponse.id);
    socket.close();

    // Billed once per response; the refused frames never reached the relay and bill nothing.
    await ledgerRows(id, 2);
    await stack.proxy.services.billing.flush();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rows = await ledgerRows(id, 2);
    expect(rows.map((row) => [row.endpoint, row.stream, row.status])).toEqual([["responses", true, "ok"], ["responses", true, "ok"]]);
  });
});

describe("store: false, as Codex sends it", () => {
  it("the next frame's previous_response_id continues from the socket's own memory; nothing is stored, so over HTTP the id is unknown", async () => {
    const { openai } = await stack.client();
    const socket = new ResponsesWS(openai);
    const next = reader(socket);
    socket.send({ type: "response.create", model: "claude-test", store: false, input: "The colour is teal." } as never);
    const first = (await next()).at(-1)!.response!;
    stack.simulator.stats.clear();
    socket.send({ type: "response.create", model: "claude-test", store: false, previous_response_id: first.id, input: [{ type: "message", role: "user", content: "Which colour?" }] } as never);
    expect((await next()).at(-1)!.type).toBe("response.completed");
    const sent = JSON.stringify(stack.simulator.stats.requests.at(-1)!.body);
    expect(sent).toContain("The colour is teal.");
    expect(sent).toContain("Which colour?");
    socket.close();
    expect(await openai.responses.retrieve(first.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const overHttp = await openai.responses.create({ model: "claude-test", previous_response_id: first.id, input: "?" }).catch((error: unknown) => error);
    expect(overHttp).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe("the socket's key and limits", () => {
  it("a key revoked while its socket is open: the next response.create gets an error frame (401)", async () => {
    const { id, openai } = await stack.client();
    const socket = new ResponsesWS(openai);
    const next = reader(socket);
    socket.send({ type: "response.create", model: "gpt-test", input: "hi" } as never);
    expect((await next()).at(-1)!.type).toBe("response.completed");
    await stack.revokeKey(id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.send({ type: "response.create", model: "gpt-test", input: "hi again" } as never);
    expect((await next()).at(-1)).toMatchObject({ type: "error", status: 401, error: { code: "invalid_api_key" } });
    socket.close();
  });

  it("a frame over BODY_LIMIT_BYTES closes the socket with 1009", async () => {
    const { key } = await stack.client();
    const ws = new WebSocket(`${stack.proxy.url.replace("http", "ws")}/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(JSON.stringify({ type: "response.create", model: "gpt-test", input: "x".repeat(BODY_LIMIT + 1) }));
    expect(await closed).toBe(1009);
  });

  it("an upgrade without a valid key is the 401 envelope; an upgrade elsewhere is the 404 envelope; plain GET /v1/responses is still an unknown route", async () => {
    const upgrade = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(`${stack.proxy.url}${path}`, { headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "8J3ahDG/ct/2fq4dzsG+/Q==", ...headers } });
        request.on("response", (response) => {
          let body = "";
          response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on("upgrade", () => reject(new Error("switched protocols")));
        request.on("error", reject);
        request.end();
      });
    const noKey = await upgrade("/v1/responses", {});
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.body).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    const badKey = await upgrade("/v1/responses", { authorization: "Bearer sk-nope" });
    expect(badKey.status).toBe(401);
    const { key } = await stack.client();
    const elsewhere = await upgrade("/v1/chat/completions", { authorization: `Bearer ${key}` });
    expect([elsewhere.status, JSON.parse(elsewhere.body).error.code]).toEqual([404, "route_not_found"]);
    const plain = await fetch(`${stack.proxy.url}/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
    expect([plain.status, ((await plain.json()) as { error: { code: string } }).error.code]).toEqual([404, "route_not_found"]);
  });
});

describe("shutdown", () => {
  it("a proxy stopping lets the socket's running response finish, then closes it with 1001", async () => {
    const proxy = await startProxy(loadProxyConfig({ ...stack.proxyEnv, SHUTDOWN_DEADLINE_MS: "5000" }));
    const { openai } = await stack.client();
    const socket = new ResponsesWS(new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: openai.apiKey, maxRetries: 0 }));
    const closed = new Promise<number>((resolve) => socket.on("close", (code: number) => resolve(code)));
    const deltas: string[] = [];
    const finished = new Promise<ServerEvent>((resolve) =>
      socket.on("event", (event) => {
        const typed = event as ServerEvent;
        if (typed.type === "response.output_text.delta") deltas.push(typed.type);
        if (typed.type === "response.completed" || typed.type === "error") resolve(typed);
      }),
    );
    socket.on("error", () => undefined);
    socket.send({ type: "response.create", model: "gpt-test", input: "#sim:chunks=8 #sim:chunk_delay_ms=100 a slow answer" } as never);
    while (deltas.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const stopping = proxy.close();
    expect((await finished).type).toBe("response.completed");
    expect(deltas.length).toBe(8);
    expect(await closed).toBe(1001);
    await stopping;
  });
});
