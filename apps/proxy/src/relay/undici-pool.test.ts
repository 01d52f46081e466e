import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Pool } from "./undici-pool.ts";

describe("undici's Pool without its index", () => {
  it("has the request API the index adds (the control plane's calls use it)", async () => {
    const server = createServer((_request, response) => response.end('{"ok":true}')).listen(0, "127.0.0.1");
    await once(server, "listening");
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
    try {
      const answer = await pool.request({ method: "GET", path: "/" });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.json()).toEqual({ ok: true });
    } finally {
      await pool.close();
      server.close();
    }
  });
});
