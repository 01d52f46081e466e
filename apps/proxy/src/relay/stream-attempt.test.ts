import { once } from "node:events";
import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { writeNow } from "./stream-attempt.ts";

/** A server whose one response is written by `respond`; resolves with the body the client read. */
async function serve(respond: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((_request, response) => respond(response));
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const client = request({ host: "127.0.0.1", port, path: "/" });
  client.end();
  const [answer] = (await once(client, "response")) as [NodeJS.ReadableStream];
  let body = "";
  answer.setEncoding("utf8");
  for await (const chunk of answer) body += chunk;
  return body;
}

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe("writeNow", () => {
  it("hands the head and the first event to the kernel in the same tick, and later writes of the tick still go out", async () => {
    const seen: Array<{ corked: number; buffered: number }> = [];
    const body = await serve((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      writeNow(response, ["data: 1\n\n"]);
      seen.push({ corked: response.socket!.writableCorked, buffered: response.socket!.writableLength });
      response.write("data: 2\n\n");
      // node:http corks again for the rest of the tick: these leave together on the next.
      seen.push({ corked: response.socket!.writableCorked, buffered: response.socket!.writableLength });
      response.end("data: 3\n\n");
    });
    expect(seen[0]).toEqual({ corked: 0, buffered: 0 });
    expect(seen[1]!.corked).toBe(1);
    expect(body).toBe("data: 1\n\ndata: 2\n\ndata: 3\n\n");
  });

  it("is what makes the difference: a plain first write stays corked until the next tick", async () => {
    const seen: Array<{ corked: number; buffered: number }> = [];
    await serve((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      seen.push({ corked: response.socket!.writableCorked, buffered: response.socket!.writableLength });
      response.end();
    });
    expect(seen[0]!.corked).toBe(1);
    expect(seen[0]!.buffered).toBeGreaterThan(0);
  });
});
