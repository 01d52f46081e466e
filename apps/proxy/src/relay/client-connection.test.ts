// The client's connection as the attempts see it, through a real server: gone only when the
// response closed before it finished; the watched attempt is aborted on exactly that, and not
// once it is unwatched.
import { once } from "node:events";
import { createServer, request as httpRequest, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_GONE, clientConnection, drainThenAbort, type ClientConnection } from "./attempt-context.ts";
import { CallAbort } from "./upstream-client.ts";

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server whose one response `onResponse` handles; resolves with the response's port. */
async function serve(onResponse: (response: ServerResponse) => void): Promise<number> {
  const server = createServer((_request, response) => onResponse(response));
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/**
 * A client that sends a request and leaves 50 ms later, before any answer: `onResponse` prepares
 * the request's connection; resolves with whether it read as gone when its response closed.
 */
function clientLeaves(onResponse: (connection: ClientConnection) => void): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    void serve((response) => {
      const connection = clientConnection(response);
      onResponse(connection);
      response.on("close", () => resolve(connection.gone));
    }).then((port) => {
      const client = httpRequest({ port, host: "127.0.0.1", path: "/" });
      client.on("error", () => undefined);
      client.end();
      setTimeout(() => client.destroy(), 50);
    });
  });
}

describe("clientConnection", () => {
  it("is gone when the client leaves before the answer, and the watched attempt is aborted", async () => {
    const attempt = new CallAbort();
    const earlier = new CallAbort();
    const goneAtClose = await clientLeaves((connection) => {
      expect(connection.gone).toBe(false);
      // The second attempt replaces the first: only the attempt being made is aborted.
      connection.watch(() => drainThenAbort(earlier, 0));
      connection.unwatch();
      connection.watch(() => drainThenAbort(attempt, 0));
    });
    expect(goneAtClose).toBe(true);
    expect(attempt.aborted).toBe(true);
    expect((attempt.reason as Error).message).toBe(CLIENT_GONE);
    expect(earlier.aborted).toBe(false);
  });

  it("aborts nothing once the attempt is unwatched, even when the client then leaves", async () => {
    const unwatched = new CallAbort();
    const goneAtClose = await clientLeaves((connection) => {
      connection.watch(() => drainThenAbort(unwatched, 0));
      connection.unwatch();
    });
    expect(goneAtClose).toBe(true);
    expect(unwatched.aborted).toBe(false);
  });

  it("is not gone after a finished answer, and a watched attempt is not aborted by its close", async () => {
    const watched = new CallAbort();
    let goneAfter: boolean | null = null;
    const port = await serve((response) => {
      const connection = clientConnection(response);
      connection.watch(() => drainThenAbort(watched, 0));
      response.on("close", () => (goneAfter = connection.gone));
      response.end("ok");
    });
    const client = httpRequest({ port, host: "127.0.0.1", path: "/", agent: false });
    client.end();
    const [answer] = (await once(client, "response")) as [NodeJS.ReadableStream];
    answer.resume();
    await once(answer, "end");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(goneAfter).toBe(false);
    expect(watched.aborted).toBe(false);
  });

  it("keeps `gone` on a shared prototype, not as a getter of each object", () => {
    // An object literal's getter is a new closure per request, and V8 gives each such object a
    // hidden class of its own, held from old space until a full collection: through the getter's
    // closure that kept every request's response alive across young collections (issue 18).
    const first = clientConnection({ destroyed: false, writableFinished: false } as ServerResponse);
    const second = clientConnection({ destroyed: true, writableFinished: false } as ServerResponse);
    expect(Object.getOwnPropertyDescriptor(first, "gone")).toBeUndefined();
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
    expect([first.gone, second.gone]).toEqual([false, true]);
  });
});
