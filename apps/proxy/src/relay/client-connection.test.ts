// The client's connection as the attempts see it, through a real server: gone only when the
// response closed before it finished; `onGone` hears exactly that, and stops when told.
import { once } from "node:events";
import { createServer, request as httpRequest, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { clientConnection } from "./attempt-context.ts";

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

describe("clientConnection", () => {
  it("is gone when the client leaves before the answer, and onGone hears it", async () => {
    let heard = 0;
    let goneAtClose: boolean | null = null;
    const closed = new Promise<void>((resolve) => {
      void serve((response) => {
        const connection = clientConnection(response);
        expect(connection.gone).toBe(false);
        connection.onGone(() => (heard += 1));
        response.on("close", () => {
          goneAtClose = connection.gone;
          resolve();
        });
      }).then((port) => {
        const client = httpRequest({ port, host: "127.0.0.1", path: "/" });
        client.on("error", () => undefined);
        client.end();
        setTimeout(() => client.destroy(), 50);
      });
    });
    await closed;
    expect(goneAtClose).toBe(true);
    expect(heard).toBe(1);
  });

  it("is not gone after a finished answer, and a stopped listener hears nothing", async () => {
    let heardFinished = 0;
    let heardStopped = 0;
    let goneAfter: boolean | null = null;
    const port = await serve((response) => {
      const connection = clientConnection(response);
      connection.onGone(() => (heardFinished += 1));
      const stop = connection.onGone(() => (heardStopped += 1));
      stop();
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
    expect(heardFinished).toBe(0);
    expect(heardStopped).toBe(0);
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
