import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Server as NetServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ReadBuffer, statusOf } from "./http-frames.ts";
import { requestBytes, runLeanLoad } from "./lean-load.ts";
import { record, recordedServer, responseBytes } from "./recorded-upstream.ts";
import { requestTarget, type RequestTarget } from "./request-target.ts";

const servers: Array<Server | NetServer> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ("closeAllConnections" in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen<T extends Server | NetServer>(server: T): Promise<string> {
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A node:http server answering each request with `answer`, keeping what it received. */
function httpServer(answer: (request: IncomingMessage, body: string, response: ServerResponse) => void) {
  const received: Array<{ headers: IncomingMessage["headers"]; url: string | undefined; body: string }> = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, url: request.url, body });
      answer(request, body, response);
    });
  });
  return { server, received };
}

const target = (base: string): RequestTarget => requestTarget({ simulatorUrl: base, simulatorKey: "sim-key", proxyUrl: "", proxyKey: "" }, { api: "chat", stream: false }, false);

describe("runLeanLoad", () => {
  it("sends the target's exact request again and again on each connection, and counts every whole 2xx answer", async () => {
    const { server, received } = httpServer((_request, _body, response) => {
      const body = JSON.stringify({ ok: true });
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
    });
    const base = await listen(server);
    const sent = target(base);
    const figures = await runLeanLoad(sent, 4, 0.3);
    expect(figures.errors).toBe(0);
    expect(figures.completed).toBeGreaterThan(20);
    // Every request the server answered was counted once, none lost or invented.
    expect(received.length).toBe(figures.completed);
    expect(new Set(received.map((request) => request.body))).toEqual(new Set([sent.body]));
    expect(received[0]!.url).toBe("/v1/chat/completions");
    expect(received[0]!.headers.authorization).toBe("Bearer sim-key");
    expect(received[0]!.headers["content-type"]).toBe("application/json");
    expect(figures.latency.count).toBe(figures.completed);
    expect(figures.latency.p50).toBeGreaterThan(0);
  });

  it("counts non-2xx answers as errors, not as completed requests", async () => {
    const { server } = httpServer((_request, _body, response) => response.writeHead(503, { "content-length": "4" }).end("busy"));
    const figures = await runLeanLoad(target(await listen(server)), 2, 0.2);
    expect(figures.completed).toBe(0);
    expect(figures.errors).toBeGreaterThan(2);
  });

  it("ends a connection whose answer it cannot frame (a chunked body) and counts it as an error", async () => {
    const { server, received } = httpServer((_request, _body, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"chunked":true}');
    });
    const figures = await runLeanLoad(target(await listen(server)), 3, 0.2);
    expect(figures.completed).toBe(0);
    expect(figures.errors).toBe(3);
    expect(received.length).toBe(3);
  });

  it("counts a connection refused as an error", async () => {
    const probe = createServer();
    const base = await listen(probe);
    servers.pop();
    await new Promise((resolve) => probe.close(resolve));
    const figures = await runLeanLoad(target(base), 2, 0.1);
    expect(figures).toMatchObject({ completed: 0, errors: 2 });
  });
});

describe("the recorded upstream", () => {
  it("plays the recorded answer back, byte for byte, to every request the lean load sends", async () => {
    const answer = JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    const simulator = httpServer((_request, _body, response) => {
      response.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(answer) }).end(answer);
    });
    const simulatorUrl = await listen(simulator.server);
    const recorded = await record(target(simulatorUrl));
    expect(simulator.received).toHaveLength(1);
    expect(simulator.received[0]!.headers.authorization).toBe("Bearer sim-key");

    const upstream = await listen(recordedServer(recorded));
    const response = await fetch(`${upstream}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.text()).toBe(answer);
    expect((await fetch(`${upstream}/readyz`)).status).toBe(200);

    const figures = await runLeanLoad(target(upstream), 4, 0.2);
    expect(figures.errors).toBe(0);
    expect(figures.completed).toBeGreaterThan(20);
  });

  it("answers pipelined requests in order, split anywhere across reads, and refuses a chunked request body", async () => {
    const answer = responseBytes(200, "application/json", Buffer.from('{"n":1}'));
    const upstream = new URL(await listen(recordedServer(answer)));
    const request = requestBytes(target(upstream.origin));
    const socket = connect({ host: upstream.hostname, port: Number(upstream.port) });
    await once(socket, "connect");
    const three = Buffer.concat([request, request, request]);
    // Cut in the middle of the second request's head, then of the third one's body.
    const cuts = [request.length + 10, 3 * request.length - 3];
    socket.write(three.subarray(0, cuts[0]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write(three.subarray(cuts[0], cuts[1]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write(three.subarray(cuts[1]));
    const pending = new ReadBuffer();
    const statuses: number[] = [];
    for await (const chunk of socket) {
      pending.push(chunk as Buffer);
      for (let message = pending.next(() => false); message !== null; message = pending.next(() => false)) statuses.push(statusOf(message.head));
      if (statuses.length === 3) break;
    }
    expect(statuses).toEqual([200, 200, 200]);
    socket.destroy();

    const chunked = connect({ host: upstream.hostname, port: Number(upstream.port) });
    chunked.write("POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    let reply = "";
    for await (const chunk of chunked) reply += (chunk as Buffer).toString("latin1");
    expect(statusOf(reply)).toBe(400);
  });
});
