// Admission leases: one call grants a process a slice of a key's limits, admitted from without a
// call; what is not used goes back, a dead process's slice is dropped, and limits hold exactly
// across replicas (two LimitStores on two connections stand for two proxy processes).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { TestRedis } from "@gateway/testing";
import { LEASE_HOLD_MS, LimitStore, RATE_WINDOW_MS, type AdmitInput, type LimitStoreOptions } from "./limit-store.ts";
import { ADMIT_SCRIPT } from "./limit-scripts.ts";
import { countScriptCalls } from "./script-calls.ts";
import { rateWindowRoom } from "./rate-window-room.ts";

const testRedis = new TestRedis();
const { prefix } = testRedis;
let redis: Redis;

beforeAll(async () => {
  redis = await testRedis.start();
});
afterAll(() => testRedis.stop());

/** A LimitStore on a connection of its own (a proxy process), and a count of its admission calls. */
async function processStore(options: LimitStoreOptions): Promise<{ limits: LimitStore; calls: () => number; client: Redis }> {
  const client = testRedis.connect();
  await client.ping();
  return { limits: new LimitStore(client, prefix, { settleBatchMs: 1, ...options }), calls: countScriptCalls(client, ADMIT_SCRIPT), client };
}

const newKey = () => `key_${randomUUID()}`;

/** Requests counted in the key's current rate window. */
async function requestsCounted(limits: LimitStore, keyId: string): Promise<number> {
  return Number((await redis.get(limits.keys.requestWindow(keyId, Math.floor(Date.now() / RATE_WINDOW_MS)))) ?? "0");
}

describe("admission leases", () => {
  beforeEach(() => rateWindowRoom());

  it("one call grants a lease; the next requests are admitted from it without a call, and the unused part goes back", async () => {
    const { limits, calls } = await processStore({ leaseRequests: 10, leaseMs: 60_000 });
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: 1000, tpm: 1_000_000, quotaNano: 10n ** 12n, budget: null, reservationNano: 1_000n };
    const used = [];
    for (let i = 0; i < 11; i += 1) {
      const admitted = await limits.admit(input);
      expect(admitted.verdict).toBe("admitted");
      used.push(admitted.requestsUsed);
    }
    // Ten from the first lease, the eleventh asked for a second one.
    expect(calls()).toBe(2);
    expect(used).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // Both leases' requests are counted at their grant: ten each.
    expect(await requestsCounted(limits, keyId)).toBe(20);
    // Each slice holds ten reservations: the first one's are all in flight, so it kept them all.
    expect((await limits.readQuota(keyId)).reserved).toBe(20_000n);
    await limits.close();
    // The nine unused requests of the second lease and their share of its slice went back.
    expect(await requestsCounted(limits, keyId)).toBe(11);
    expect(await limits.readQuota(keyId)).toEqual({ spent: 0n, reserved: 11_000n });
  });

  it("a key with rate limits and no quota or budget keeps admitting from its lease after its requests settle (their cost ends nothing)", async () => {
    const { limits, calls } = await processStore({ leaseRequests: 10, leaseMs: 60_000 });
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: 1000, tpm: null, quotaNano: null, budget: null, reservationNano: 0n };
    for (let i = 0; i < 10; i += 1) {
      const admitted = await limits.admit(input);
      expect(admitted.verdict).toBe("admitted");
      // Each request settles (with a cost, as the billing event carries one) before the next is admitted.
      await Promise.race([limits.settle({ keyId, tokens: 20, reservationNano: 0n, costNano: 15_000n, hasQuota: false, budget: null, lease: admitted.lease }), Promise.resolve()]);
    }
    // One call granted the lease; the nine others came from it.
    expect(calls()).toBe(1);
  });

  it("requests that arrive while the key's lease is being asked for wait for it: sixteen at once, one call", async () => {
    const { limits, calls } = await processStore({ leaseRequests: 50, leaseMs: 60_000 });
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: 10_000, tpm: null, quotaNano: 10n ** 12n, budget: null, reservationNano: 1_000n };
    const admitted = await Promise.all(Array.from({ length: 16 }, () => limits.admit(input)));
    expect(admitted.every((a) => a.verdict === "admitted" && a.lease !== null && a.lease === admitted[0]!.lease)).toBe(true);
    expect(admitted.map((a) => a.requestsUsed).sort((x, y) => x - y)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(calls()).toBe(1);
    // Past the lease's fifty, the next asks again (and those arriving meanwhile wait for that one).
    const more = await Promise.all(Array.from({ length: 40 }, () => limits.admit(input)));
    expect(more.every((a) => a.verdict === "admitted")).toBe(true);
    expect(calls()).toBe(2);
    await limits.close();
  });

  it("settlements under a lease book the exact cost and tokens; nothing stays held once the requests and the lease end", async () => {
    const { limits, calls } = await processStore({ leaseRequests: 50, leaseMs: 60_000 });
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: 10_000, tpm: 10_000_000, quotaNano: 10n ** 12n, budget: { limitNano: 10n ** 12n, period: "day" }, reservationNano: 5_000n };
    const admissions = [];
    for (let i = 0; i < 30; i += 1) admissions.push(await limits.admit(input));
    expect(calls()).toBe(1);
    // Half settle while the lease is live, then it ends (limits changed) with fifteen in flight.
    let cost = 0n;
    const settled: Promise<void>[] = [];
    for (const [i, admitted] of admissions.slice(0, 15).entries()) {
      cost += BigInt(1_000 + i);
      // Under a live lease a settlement waits for the key's next call or the lease's end.
      settled.push(limits.settle({ keyId, tokens: 10, reservationNano: 5_000n, costNano: BigInt(1_000 + i), hasQuota: true, budget: admitted.budget, lease: admitted.lease }));
    }
    // Nothing written yet: the key's committed total (spent + slice) would not change by it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await limits.readQuota(keyId)).toEqual({ spent: 0n, reserved: 50n * 5_000n }); // the slice: 50 reservations
    // The next call carries them (booked before its check), and ends the lease: its limits changed.
    expect((await limits.admit({ ...input, rpm: 20_000 })).verdict).toBe("admitted");
    expect(calls()).toBe(2);
    await Promise.all(settled);
    await limits.close();
    // In flight: the fifteen requests' reservations are still held in the ended lease's slice.
    expect(await limits.readQuota(keyId)).toEqual({ spent: cost, reserved: 15n * 5_000n + 5_000n });
    for (const [i, admitted] of admissions.slice(15).entries()) {
      cost += BigInt(2_000 + i);
      await limits.settle({ keyId, tokens: 10, reservationNano: 5_000n, costNano: BigInt(2_000 + i), hasQuota: true, budget: admitted.budget, lease: admitted.lease });
    }
    expect(await limits.readQuota(keyId)).toEqual({ spent: cost, reserved: 5_000n });
    expect(await limits.readBudget(keyId, admissions[0]!.budget!)).toEqual({ spent: cost, reserved: 5_000n });
    expect(await redis.hlen(limits.keys.leases(keyId))).toBe(1);
    expect(await redis.get(limits.keys.tokenWindow(keyId, Math.floor(Date.now() / RATE_WINDOW_MS)))).toBe("300");
  });

  it("two processes on one key never admit past the rpm, and once their leases end every request of the minute can be used", async () => {
    const [a, b] = [await processStore({ leaseRequests: 50, leaseMs: 60_000 }), await processStore({ leaseRequests: 50, leaseMs: 60_000 })];
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: 1000, tpm: null, quotaNano: null, budget: null, reservationNano: 0n };
    // Twenty waves of eight at once on each process.
    let admitted = 0;
    for (let wave = 0; wave < 20; wave += 1) {
      const verdicts = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).limits.admit(input)));
      admitted += verdicts.filter((v) => v.verdict === "admitted").length;
    }
    expect(admitted).toBe(320);
    // Most were admitted from leases, without a call.
    expect(a.calls() + b.calls()).toBeLessThan(320 / 4);
    // Then one after another on both until both are refused: never past the rpm.
    const refused = new Set<LimitStore>();
    for (let i = 0; refused.size < 2; i += 1) {
      const process = (i % 2 ? a : b).limits;
      if ((await process.admit(input)).verdict === "admitted") admitted += 1;
      else refused.add(process);
    }
    expect(admitted).toBeLessThanOrEqual(1000);
    await Promise.all([a.limits.close(), b.limits.close()]);
    expect(await requestsCounted(a.limits, keyId)).toBe(admitted);
    let more = 0;
    while ((await a.limits.admit(input)).verdict === "admitted") more += 1;
    expect(admitted + more).toBe(1000);
  });

  it("two processes spending one quota: leases count as reserved for both, and the spend never passes the quota", async () => {
    const [a, b] = [await processStore({ leaseRequests: 20, leaseMs: 60_000 }), await processStore({ leaseRequests: 20, leaseMs: 60_000 })];
    const keyId = newKey();
    const quotaNano = 1_000_000n;
    const input: AdmitInput = { keyId, rpm: null, tpm: null, quotaNano, budget: null, reservationNano: 10_000n };
    let spent = 0n;
    let leased = 0;
    const settled: Promise<void>[] = [];
    const refused = new Set<string>();
    for (let i = 0; refused.size < 2 && i < 1_000; i += 1) {
      const process = i % 2 ? a : b;
      const admitted = await process.limits.admit(input);
      if (admitted.verdict !== "admitted") {
        expect(admitted.verdict).toBe("quota_exhausted");
        refused.add(i % 2 ? "a" : "b");
        continue;
      }
      if (admitted.lease) leased += 1;
      spent += 9_000n;
      settled.push(process.limits.settle({ keyId, tokens: 0, reservationNano: 10_000n, costNano: 9_000n, hasQuota: true, budget: null, lease: admitted.lease }));
    }
    expect(leased).toBeGreaterThan(0);
    expect(a.calls() + b.calls()).toBeLessThan(200);
    expect(spent).toBeGreaterThan(quotaNano - 10_000n);
    // Each admission's whole reservation fitted in what was left: no overshoot at all.
    expect(spent).toBeLessThanOrEqual(quotaNano);
    await Promise.all([a.limits.close(), b.limits.close()]);
    await Promise.all(settled);
    expect(await a.limits.readQuota(keyId)).toEqual({ spent, reserved: 0n });
  });

  it("a lease ends at its time and gives back on its own", async () => {
    const { limits } = await processStore({ leaseRequests: 20, leaseMs: 50 });
    const keyId = newKey();
    const admitted = await limits.admit({ keyId, rpm: 1_000, tpm: null, quotaNano: 10n ** 9n, budget: null, reservationNano: 100n });
    expect(admitted.lease).not.toBeNull();
    expect(await requestsCounted(limits, keyId)).toBe(20);
    await limits.settle({ keyId, tokens: 0, reservationNano: 100n, costNano: 40n, hasQuota: true, budget: null, lease: admitted.lease });
    await expect.poll(() => requestsCounted(limits, keyId), { timeout: 2_000 }).toBe(1);
    await expect.poll(() => limits.readQuota(keyId), { timeout: 2_000 }).toEqual({ spent: 40n, reserved: 0n });
    expect(await redis.exists(limits.keys.leases(keyId))).toBe(0);
  });

  it("a dead process's slice counts until Redis drops it, then the next admission clears it", async () => {
    const [live, dead] = [await processStore({ leaseRequests: 20, leaseMs: 60_000 }), await processStore({ leaseRequests: 20, leaseMs: 1_000 })];
    const observer = new LimitStore(redis, prefix);
    const keyId = newKey();
    const input: AdmitInput = { keyId, rpm: null, tpm: null, quotaNano: 10n ** 9n, budget: null, reservationNano: 1_000n };
    const first = await live.limits.admit(input);
    expect(first.lease?.sliceNano).toBe(20_000n);
    // Granted so long ago that Redis drops it a second from now: its process dies before giving it back.
    const dropAt = Date.now() + 1_000;
    const old = await dead.limits.admit({ ...input, now: dropAt - LEASE_HOLD_MS - 1_000 });
    expect(old.lease?.sliceNano).toBe(20_000n);
    dead.client.disconnect();
    expect(await observer.readQuota(keyId)).toEqual({ spent: 0n, reserved: 40_000n });
    await new Promise((resolve) => setTimeout(resolve, dropAt + 50 - Date.now()));
    // Past its drop time it no longer counts, and the live lease's does.
    expect(await observer.readQuota(keyId)).toEqual({ spent: 0n, reserved: 20_000n });
    expect(await redis.hlen(observer.keys.leases(keyId))).toBe(2);
    // The next admission call (the live lease ended: its limits changed) removes it.
    await live.limits.admit({ ...input, rpm: 1_000 });
    expect(await redis.hkeys(observer.keys.leases(keyId))).not.toContain(old.lease!.id);
  });

  it("no lease near a limit: a small rpm or a small quota is one call per request", async () => {
    const { limits, calls } = await processStore({ leaseRequests: 50, leaseMs: 60_000 });
    const small = await limits.admit({ keyId: newKey(), rpm: 10, tpm: null, quotaNano: null, budget: null, reservationNano: 0n });
    expect(small.lease).toBeNull();
    const poor = await limits.admit({ keyId: newKey(), rpm: null, tpm: null, quotaNano: 50_000n, budget: null, reservationNano: 10_000n });
    expect(poor.lease).toBeNull();
    const request = await limits.admit({ keyId: newKey(), rpm: 1_000, tpm: null, quotaNano: null, budget: null, reservationNano: 0n, lease: false });
    expect(request.lease).toBeNull();
    expect(calls()).toBe(3);
  });

  describe("renewed ahead (renewAhead: the proxy's setting)", () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it("a key's steady requests wait for Redis once: each next lease is asked for while the current one still admits, and the counts stay exact", async () => {
      const { limits, calls } = await processStore({ leaseRequests: 20, leaseMs: 60_000, renewAhead: true });
      const keyId = newKey();
      const input: AdmitInput = { keyId, rpm: 100_000, tpm: null, quotaNano: 10n ** 12n, budget: null, reservationNano: 1_000n };
      let waited = 0;
      let cost = 0n;
      for (let i = 0; i < 100; i += 1) {
        const answer = limits.admit(input);
        if (answer instanceof Promise) waited += 1;
        const admitted = await answer;
        expect(admitted.verdict).toBe("admitted");
        cost += 700n;
        void limits.settle({ keyId, tokens: 0, reservationNano: 1_000n, costNano: 700n, hasQuota: true, budget: null, lease: admitted.lease });
        await pause(5); // the request's time upstream: the renewal's reply comes meanwhile
      }
      // Only the first request waited (without renewal: one in every twenty). Each lease was
      // renewed once, with five of its twenty left: 100 requests took the first and about six more.
      expect(waited).toBe(1);
      expect(calls()).toBeGreaterThanOrEqual(6);
      await limits.close();
      // What the leases did not use went back: every request counted once, every cost spent once, nothing held.
      expect(await requestsCounted(limits, keyId)).toBe(100);
      expect(await limits.readQuota(keyId)).toEqual({ spent: cost, reserved: 0n });
    });

    it("a renewal refused a lease near a limit counts and holds nothing (it admits no request of its own)", async () => {
      const { limits, calls } = await processStore({ leaseRequests: 20, leaseMs: 60_000, renewAhead: true });
      const keyId = newKey();
      const input: AdmitInput = { keyId, rpm: 1_000, tpm: null, quotaNano: 10n ** 12n, budget: null, reservationNano: 1_000n };
      const first = await limits.admit(input);
      expect(first.lease?.requestsLeft).toBe(19);
      // Another process takes the minute's room down to ten requests past this lease's twenty: too
      // little for a lease (at most an eighth of what is left), enough to admit.
      const window = limits.keys.requestWindow(keyId, Math.floor(Date.now() / RATE_WINDOW_MS));
      await redis.incrby(window, 970);
      const reserved = (await limits.readQuota(keyId)).reserved;
      for (let i = 0; i < 15; i += 1) limits.admit(input); // five left: the renewal goes out
      for (let i = 0; i < 100 && calls() < 2; i += 1) await pause(2);
      await pause(20);
      expect(calls()).toBe(2);
      expect(await redis.get(window)).toBe("990");
      expect((await limits.readQuota(keyId)).reserved).toBe(reserved);
      await limits.close();
    });
  });
});
