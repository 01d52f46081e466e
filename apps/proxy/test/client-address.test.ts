// Behind a load balancer (TRUST_PROXY, loopback by default), the 401 throttle counts per client as
// x-forwarded-for names it, not per balancer: one client guessing keys does not slow the others.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ AUTH_FREE_FAILURES: "1" });
});
afterAll(async () => stack?.close());

async function badKey(client: string): Promise<number> {
  const response = await fetch(`${stack.proxy.url}/v1/models`, { headers: { authorization: "Bearer sk-not-a-real-key", "x-forwarded-for": client } });
  await response.arrayBuffer();
  return response.status;
}

describe("the client's address behind a trusted load balancer", () => {
  it("throttles the client that keeps failing, not everyone behind the same balancer", async () => {
    // 198.51.100.7 fails five times (answers held 0, 100, 200, 400 and 800 ms)...
    for (let i = 0; i < 5; i += 1) expect(await badKey("198.51.100.7")).toBe(401);
    // ...so its sixth 401 is held, while another client's first one is answered at once: the other
    // answers first (counted per balancer instead, the other's would be held longer still).
    const order: string[] = [];
    await Promise.all([
      badKey("198.51.100.7").then((status) => order.push(`guesser ${status}`)),
      badKey("198.51.100.8").then((status) => order.push(`other ${status}`)),
    ]);
    expect(order).toEqual(["other 401", "guesser 401"]);
  });
});
