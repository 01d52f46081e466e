// What a process holds when Redis goes away or the process dies (contract section 14): without
// Redis, only a lease the process already holds admits; a dead process's requests are released by
// a sweeper exactly once (`releaseOrphanReservation`), and its leases and in-flight tokens dropped
// (`dropProcessLeases`), leaving a live process's holds alone.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRedis } from "@gateway/testing";
import { budgetCounter, LEASE_HOLD_MS, LimitStore, RATE_WINDOW_MS, type AdmitInput, type AdmitResult } from "./limit-store.ts";
import { dropProcessLeases, releaseOrphanReservation, type HeldReservation } from "./orphan-release.ts";
import { rateWindowRoom } from "./rate-window-room.ts";

const testRedis = new TestRedis();
const { prefix } = testRedis;
let redis: Redis;

beforeAll(async () => {
  redis = await testRedis.start();
});
afterAll(() => testRedis.stop());

/** A proxy process: its own connection (fails fast once closed, as the proxy's does) and LimitStore. */
async function processStore(leaseRequests: number): Promise<{ limits: LimitStore; client: Redis }> {
  const client = testRedis.connect({ enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  return { limits: new LimitStore(client, prefix, { settleBatchMs: 1, leaseRequests, leaseMs: 60_000 }), client };
}

const newKey = () => `key_${randomUUID()}`;

/** What the proxy's Limiter writes to its journal for an admitted request. */
function held(limits: LimitStore, input: AdmitInput, answer: AdmitResult): HeldReservation {
  return {
    requestId: `req_${randomUUID()}`,
    keyId: input.keyId,
    reservationNano: input.reservationNano.toString(),
    tokens: input.tokens ?? 0,
    hasQuota: input.quotaNano !== null,
    budget: answer.budget,
    leaseId: answer.lease?.id ?? null,
    processTag: limits.processTag,
    tokensHolder: answer.tokensHolder,
  };
}

describe("Redis away", () => {
  it("a request is admitted only from a lease the process already holds; any other check fails (the limiter's 503)", async () => {
    const { limits, client } = await processStore(10);
    const [leased, other] = [newKey(), newKey()];
    const input: AdmitInput = { keyId: leased, rpm: 1_000, tpm: 100_000, quotaNano: 10n ** 9n, budget: null, reservationNano: 1_000n, tokens: 100 };
    expect((await limits.admit(input)).lease).not.toBeNull();
    client.disconnect();
    // Nine requests left in the lease: admitted at once, no Redis involved.
    for (let i = 0; i < 9; i += 1) {
      const answer = limits.admit(input);
      expect(answer).not.toBeInstanceOf(Promise);
      expect((answer as AdmitResult).verdict).toBe("admitted");
    }
    // The lease is used up; a key without a lease: the check cannot be made.
    await expect(limits.admit(input)).rejects.toThrow();
    await expect(limits.admit({ ...input, keyId: other })).rejects.toThrow();
    await expect(limits.admit({ ...input, keyId: other, lease: false })).rejects.toThrow();
  });
});

describe("a release that never reached Redis", () => {
  it("holds the TPM for two LEASE_HOLD_MS periods at most, however busy the key", async () => {
    const limits = new LimitStore(redis, prefix, { settleBatchMs: 1 });
    const keyId = newKey();
    const start = Date.now();
    const input: AdmitInput = { keyId, rpm: null, tpm: 1_000, quotaNano: null, budget: null, reservationNano: 0n, tokens: 600, now: start };
    // Admitted, then its settlement was lost (Redis away when it was written): 600 tokens stay held.
    expect((await limits.admit(input)).tokensHolder).not.toBeNull();
    // The key stays busy: every five minutes a small request is admitted and settled.
    for (let at = start + 300_000; at <= start + 2 * LEASE_HOLD_MS + 300_000; at += 300_000) {
      const full = await limits.admit({ ...input, tokens: 1_000, now: at });
      // Still held while its period's field lives; gone two periods on.
      if (at < start + LEASE_HOLD_MS) expect(full.verdict).toBe("tokens_limited");
      if (at > start + 2 * LEASE_HOLD_MS) expect(full.verdict).toBe("admitted");
      if (full.verdict === "admitted") return;
      const small = await limits.admit({ ...input, tokens: 10, now: at });
      expect(small.verdict).toBe("admitted");
      await limits.settle({ keyId, tokens: 0, reservationNano: 0n, costNano: 0n, hasQuota: false, budget: null, heldTokens: 10, tokensHolder: small.tokensHolder, now: at });
    }
    throw new Error("the lost release still holds the TPM");
  });
});

describe("a dead process's holds, released by a sweeper", () => {
  it("releaseOrphanReservation gives back a request's reservation and in-flight tokens and books its bill, exactly once", async () => {
    await rateWindowRoom();
    const { limits, client } = await processStore(0);
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: null, tpm: 10_000, quotaNano: 10n ** 9n, budget: { limitNano: 10n ** 9n, period: "day" }, reservationNano: 70_000n, tokens: 900 };
    const answers = [await limits.admit(input), await limits.admit(input)];
    expect(answers.every((answer) => answer.verdict === "admitted" && answer.lease === null)).toBe(true);
    client.disconnect(); // killed: it never settles
    const counter = budgetCounter("day", Date.now());
    const observer = new LimitStore(redis, prefix);
    expect(await observer.readQuota(keyId)).toEqual({ spent: 0n, reserved: 140_000n });
    expect(await observer.readTokensHeld(keyId)).toBe(1_800);

    const [first, second] = answers.map((answer) => held(limits, input, answer));
    // JSON round trip: what the journal stores is what the sweeper reads.
    const journal = JSON.parse(JSON.stringify(first)) as HeldReservation;
    expect(await releaseOrphanReservation(redis, prefix, journal, 30_000n, 400)).toBe(true);
    expect(await releaseOrphanReservation(redis, prefix, journal, 30_000n, 400)).toBe(false);
    expect(await observer.readQuota(keyId)).toEqual({ spent: 30_000n, reserved: 70_000n });
    expect(await observer.readBudget(keyId, counter)).toEqual({ spent: 30_000n, reserved: 70_000n });
    expect(await observer.readTokensHeld(keyId)).toBe(900);
    expect(await releaseOrphanReservation(redis, prefix, second!, 5_000n, 100)).toBe(true);
    expect(await observer.readQuota(keyId)).toEqual({ spent: 35_000n, reserved: 0n });
    expect(await observer.readBudget(keyId, counter)).toEqual({ spent: 35_000n, reserved: 0n });
    expect(await observer.readTokensHeld(keyId)).toBe(0);
    expect(await redis.get(observer.keys.tokenWindow(keyId, Math.floor(Date.now() / RATE_WINDOW_MS)))).toBe("500");
  });

  it("dropProcessLeases drops a dead process's lease slices and tokens, in any order with the releases, and leaves a live process's holds", async () => {
    await rateWindowRoom();
    const [dead, live, deadAlone] = [await processStore(20), await processStore(20), await processStore(0)];
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: null, tpm: 1_000_000, quotaNano: 10n ** 9n, budget: null, reservationNano: 10_000n, tokens: 1_000 };
    const leased = [await dead.limits.admit(input), await dead.limits.admit(input), await dead.limits.admit(input)];
    expect(leased.every((answer) => answer.lease !== null && answer.lease === leased[0]!.lease)).toBe(true);
    const own = await deadAlone.limits.admit(input);
    expect(own.lease).toBeNull();
    const kept = await live.limits.admit(input);
    const liveSlice = { nano: kept.lease!.sliceNano, tokens: kept.lease!.tokenSlice };
    dead.client.disconnect();
    deadAlone.client.disconnect();
    const observer = new LimitStore(redis, prefix);
    const deadSlice = leased[0]!.lease!;
    expect(await observer.readQuota(keyId)).toEqual({ spent: 0n, reserved: deadSlice.sliceNano + 10_000n + liveSlice.nano });
    expect(await observer.readTokensHeld(keyId)).toBe(deadSlice.tokenSlice + 1_000 + liveSlice.tokens);

    // The sweeper: one release before the drop, the rest after, and the drop twice.
    const orphans = leased.map((answer) => held(dead.limits, input, answer));
    expect(await releaseOrphanReservation(redis, prefix, orphans[0]!, 4_000n, 300)).toBe(true);
    expect(await dropProcessLeases(redis, prefix, keyId, dead.limits.processTag)).toBe(2);
    expect(await dropProcessLeases(redis, prefix, keyId, dead.limits.processTag)).toBe(0);
    for (const orphan of orphans.slice(1)) expect(await releaseOrphanReservation(redis, prefix, orphan, 4_000n, 300)).toBe(true);
    expect(await dropProcessLeases(redis, prefix, keyId, deadAlone.limits.processTag)).toBe(1);
    expect(await releaseOrphanReservation(redis, prefix, held(deadAlone.limits, input, own), 2_000n, 100)).toBe(true);

    // Only the live process's lease is left; every orphan's bill is spent.
    expect(await observer.readQuota(keyId)).toEqual({ spent: 14_000n, reserved: liveSlice.nano });
    expect(await observer.readTokensHeld(keyId)).toBe(liveSlice.tokens);
    // Under its live lease a settlement is written when the lease ends (here: the process closes).
    const settled = live.limits.settle({ keyId, tokens: 500, reservationNano: 10_000n, costNano: 1_000n, hasQuota: true, budget: null, lease: kept.lease, heldTokens: 1_000 });
    await live.limits.close();
    await settled;
    expect(await observer.readQuota(keyId)).toEqual({ spent: 15_000n, reserved: 0n });
    expect(await observer.readTokensHeld(keyId)).toBe(0);
  });
});
