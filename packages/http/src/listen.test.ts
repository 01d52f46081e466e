import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { listen } from "./listen.ts";

/** A GET through `agent`, resolving with the body once the response has ended. */
function get(url: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve(body));
    })
      .on("error", reject)
      .end();
  });
}

describe("listen().close", () => {
  it("ends a keep-alive connection whose request was in flight at close once its response is done, well before the deadline", async () => {
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const http = await listen((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      started();
      setTimeout(() => response.end("data: 2\n\n"), 200);
    }, 0, "127.0.0.1");
    // A client that would keep the idle connection open for as long as the server lets it.
    const agent = new Agent({ keepAlive: true });
    try {
      const answered = get(http.url, agent);
      await inFlight;
      const deadlineMs = 20_000;
      const closed = http.close(deadlineMs).then(() => "closed" as const);
      expect(await answered).toBe("data: 1\n\ndata: 2\n\n");
      // Far below the deadline, far above the 200 ms the response takes.
      const cutoff = new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), 3_000).unref());
      expect(await Promise.race([closed, cutoff])).toBe("closed");
    } finally {
      agent.destroy();
    }
  });
});

describe("listen().close and idle keep-alive connections", () => {
  it("answers a request sent on an idle connection just after close began, with connection: close, instead of resetting it", async () => {
    const http = await listen((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("ok");
    }, 0, "127.0.0.1");
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(http.url, agent)).toBe("ok");
      // The connection is idle in the agent's pool now; the server starts closing.
      const closed = http.close(10_000);
      const answer = await new Promise<{ body: string; connection: string | undefined }>((resolve, reject) => {
        request(http.url, { agent }, (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => (body += chunk.toString()));
          response.on("end", () => resolve({ body, connection: response.headers.connection }));
        })
          .on("error", reject)
          .end();
      });
      expect(answer).toEqual({ body: "ok", connection: "close" });
      await closed;
    } finally {
      agent.destroy();
    }
  });
});
