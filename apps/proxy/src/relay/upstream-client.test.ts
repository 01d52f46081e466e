import { once } from "node:events";
import { createServer, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { UpstreamRecord } from "@gateway/redis-store";
import { CallAbort, UpstreamClient, type UpstreamCall } from "./upstream-client.ts";

const servers: Server[] = [];
const clients: UpstreamClient[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function listening(handler: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((_request, response) => handler(response));
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function callTo(baseUrl: string): UpstreamCall {
  const upstream: UpstreamRecord = {
    name: "test",
    shape: "openai",
    baseUrl,
    secretEnv: null,
    priority: 0,
    weight: 1,
    connectTimeoutMs: 1_000,
    firstByteTimeoutMs: 1_000, responseTimeoutMs: 1_000,
    supportsResponses: false,
    dropBetas: [],
  };
  return { upstream, path: "/stream", headers: {}, body: "{}", abort: new CallAbort(), bodyTimeoutMs: 1_000, errorBodyLimit: 1_000 };
}

/** Counts the sends (write and writev calls) a server-side socket makes. */
function countSends(socket: Socket): { sends: number } {
  const counter = { sends: 0 };
  const internal = socket as unknown as { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
  const write = internal._write.bind(socket);
  const writev = internal._writev.bind(socket);
  internal._write = (...args) => {
    counter.sends += 1;
    write(...args);
  };
  internal._writev = (...args) => {
    counter.sends += 1;
    writev(...args);
  };
  return counter;
}

const EVENTS = "data: 1\n\ndata: 2\n\n";

describe("UpstreamClient.stream", () => {
  it("runs the sink's end in the tick of the body's last chunk, before the call resolves", async () => {
    const upstream = await listening((response) => response.end(EVENTS));
    const client = new UpstreamClient({ connections: 1 });
    clients.push(client);
    const order: string[] = [];
    let tickPassed = false;
    const answer = client.stream(callTo(upstream), {
      chunk(chunk) {
        order.push(`chunk:${chunk.toString()}`);
        tickPassed = false;
        process.nextTick(() => {
          tickPassed = true;
        });
        return true;
      },
      end() {
        order.push(`end, a tick passed: ${tickPassed}`);
      },
    });
    const { statusCode } = await answer;
    order.push("resolved");
    expect(statusCode).toBe(200);
    expect(order).toEqual([`chunk:${EVENTS}`, "end, a tick passed: false", "resolved"]);
  });

  it("so a response ended there leaves in one send with its head and events (ended after the await: two)", async () => {
    const upstream = await listening((response) => response.end(EVENTS));
    const client = new UpstreamClient({ connections: 1 });
    clients.push(client);
    const relay = (endInTick: boolean) =>
      listening((response) => {
        sends.push(countSends(response.socket!));
        response.writeHead(200, { "content-type": "text/event-stream" });
        const sink = { chunk: (chunk: Buffer) => response.write(chunk), ...(endInTick ? { end: () => void response.end("data: end\n\n") } : {}) };
        void client.stream(callTo(upstream), sink).then(() => {
          if (!endInTick) response.end("data: end\n\n");
        });
      });
    const sends: Array<{ sends: number }> = [];
    for (const endInTick of [true, false]) {
      const front = await relay(endInTick);
      const received = request(`${front}/`).end();
      const [answer] = (await once(received, "response")) as [NodeJS.ReadableStream];
      let body = "";
      answer.setEncoding("utf8");
      for await (const piece of answer) body += piece;
      expect(body).toBe(`${EVENTS}data: end\n\n`);
    }
    expect(sends.map((counter) => counter.sends)).toEqual([1, 2]);
  });

  it("a throw in the sink's end rejects the call", async () => {
    const upstream = await listening((response) => response.end(EVENTS));
    const client = new UpstreamClient({ connections: 1 });
    clients.push(client);
    const failing = client.stream(callTo(upstream), {
      chunk: () => true,
      end() {
        throw new Error("end failed");
      },
    });
    await expect(failing).rejects.toThrow("end failed");
  });

  it("an error status is collected, not streamed, and the sink's end does not run", async () => {
    const upstream = await listening((response) => {
      response.statusCode = 429;
      response.end('{"error":"slow down"}');
    });
    const client = new UpstreamClient({ connections: 1 });
    clients.push(client);
    const seen: string[] = [];
    const answer = await client.stream(callTo(upstream), {
      chunk: () => {
        seen.push("chunk");
        return true;
      },
      end: () => void seen.push("end"),
    });
    expect(answer.statusCode).toBe(429);
    expect(answer.body.toString()).toBe('{"error":"slow down"}');
    expect(seen).toEqual([]);
  });
});
