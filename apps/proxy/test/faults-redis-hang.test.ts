// Redis hangs with its sockets open (SIGSTOP of the private redis-server): the kernel takes every
// command and nothing answers. A limited key's request is admitted only from a lease this process
// already holds, exactly what is left of it (contract section 14, "never admitted unchecked"), else
// refused 503 with retry-after: the admission's wait for Redis is bounded (the limiter's, 2 s), it
// never hangs (the test's own timeout fails it). A key without limits goes on from the key cache.
// Once Redis runs again, limited keys are admitted again, no restart.
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedisGateway, type ChatAnswer, type PrivateRedisGateway } from "./private-redis-gateway.ts";

/** Small leases, so what the held ones can admit during the hang is a small, countable number. */
const LEASE_REQUESTS = 10;
/** Long enough that a lease granted just before the freeze is still live when its requests come. */
const LEASE_MS = 5_000;
/** Rate windows (and the leases counted in them) end on the minute. */
const RATE_WINDOW_MS = 60_000;
const LANES = 8;
let gateway: PrivateRedisGateway;

beforeAll(async () => {
  gateway = await startPrivateRedisGateway({ proxyEnv: { LIMIT_LEASE_REQUESTS: String(LEASE_REQUESTS), LIMIT_LEASE_MS: String(LEASE_MS) } });
});
afterAll(async () => gateway?.close());

interface Sent extends ChatAnswer {
  startedAt: number;
}

/** `count` requests of `key`, `LANES` at a time. */
async function send(key: string, count: number): Promise<Sent[]> {
  const answers: Sent[] = [];
  const lane = async () => {
    while (answers.length < count) {
      const startedAt = Date.now();
      answers.push({ ...(await gateway.chat(key)), startedAt });
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  return answers;
}

describe("Redis frozen (SIGSTOP) with its sockets open", () => {
  it("a limited key is served from its held lease, then gets 503 with retry-after, never a wait without end nor an unchecked 200; then works again", async () => {
    const { proxy } = gateway;
    const limited = await gateway.newKey();
    // A key with a quota: its lease holds a slice of it, and admits what is left of its requests.
    const leased = await gateway.newKey({ quotaNano: 1_000_000_000_000n });
    const unlimited = await gateway.newKey({ limits: false });
    const warm = [...(await send(limited, 20)), ...(await send(unlimited, 4))];
    expect(warm.filter((answer) => answer.status !== 200)).toEqual([]);
    // `leased` is known to the key cache, and has no lease yet (a model list admits nothing).
    expect((await gateway.models(leased)).status).toBe(200);

    // A lease ends with its rate window, on the minute: grant it where a whole LEASE_MS is left.
    const intoWindow = Date.now() % RATE_WINDOW_MS;
    if (intoWindow > RATE_WINDOW_MS - LEASE_MS - 1_000) await delay(RATE_WINDOW_MS - intoWindow + 10);
    // Its first request asks for a lease of LEASE_REQUESTS and takes one of them.
    const granted = await gateway.chat(leased);
    expect(granted.status).toBe(200);

    await gateway.freeze();
    const frozenAt = Date.now();
    // More requests than the leases held at the freeze could admit; each gets an answer.
    const [fromLease, during] = await Promise.all([send(leased, 3 * LEASE_REQUESTS), send(limited, 4 * LEASE_REQUESTS)]);
    // And once every lease granted before the freeze has ended (a lease lives LEASE_MS at most):
    // no request of a limited key can be admitted any more.
    await delay(Math.max(0, frozenAt + LEASE_MS + 1 - Date.now()));
    const afterLeases = await send(limited, 2 * LANES);
    const free = await send(unlimited, 8);

    for (const answer of [...fromLease, ...during, ...afterLeases]) {
      if (answer.status === 200) continue;
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { type: "overloaded_error", code: "dependency_unavailable" } });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // Exactly what the lease held could admit, the rest refused.
    expect(fromLease.filter((answer) => answer.status === 200).length).toBe(LEASE_REQUESTS - 1);
    // Only held leases admit: the one live at the freeze, and at most one more whose grant was on
    // its way back from Redis then. Once they are over, nothing.
    expect(during.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(2 * LEASE_REQUESTS);
    expect(during.filter((answer) => answer.status === 503).length).toBeGreaterThanOrEqual(2 * LEASE_REQUESTS);
    expect(afterLeases.map((answer) => answer.status)).toEqual(afterLeases.map(() => 503));
    // No limits, no Redis needed: the key cache serves it.
    expect(free.map((answer) => answer.status)).toEqual(free.map(() => 200));

    gateway.thaw();
    await expect.poll(async () => (await gateway.chat(limited)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    const after = [...(await send(limited, 20)), ...(await send(leased, 20))];
    expect(after.filter((answer) => answer.status !== 200)).toEqual([]);

    // Every 200 is billed exactly once; a refused request is not billed.
    await proxy.services.billing.flush();
    expect(proxy.services.billing.dropped).toBe(0);
    const jobs = await gateway.jobsByRequest();
    const all = [...warm, granted, ...fromLease, ...during, ...afterLeases, ...free, ...after];
    expect(all.filter((answer) => answer.status === 200 && jobs.get(answer.requestId) !== 1)).toEqual([]);
    expect(all.filter((answer) => answer.status === 503 && jobs.has(answer.requestId))).toEqual([]);
  }, 60_000);
});
