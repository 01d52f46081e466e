// A customer's limits on a real 3-master Redis Cluster: the key's counters live in its customer's
// slot, so the one admission script reads and writes both without a cross-slot error.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisCluster, type LocalRedisTopology } from "@gateway/testing";
import { connectRedisFromConfig, redisReady, type RedisClient } from "./connect.ts";
import { LimitStore, type CustomerLimits } from "./limit-store.ts";
import { releaseOrphanReservation } from "./orphan-release.ts";
import { addWalletCredit, readWallet } from "./wallet.ts";

const prefix = `test-${randomUUID().slice(0, 8)}`;
let cluster: LocalRedisTopology;
let redis: RedisClient;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  redis = connectRedisFromConfig({ REDIS_URL: "redis://ignored-with-nodes:6379", REDIS_CLUSTER_NODES: cluster.nodes }, { failFast: true, name: "customer-cluster-test" });
  await redisReady(redis);
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

describe("customer limits on a Redis Cluster", () => {
  it("customers on every master: wallet, budget and plan window admitted, settled and released in one slot each", async () => {
    const limits = new LimitStore(redis, prefix);
    const customers: CustomerLimits[] = Array.from({ length: 9 }, (_, index) => ({
      id: `cus_${randomUUID().replaceAll("-", "")}`,
      budget: { limitNano: 1_000_000n, period: "day" },
      wallet: true,
      windows: [{ key: `plan:sub_${index}:0`, lengthMs: 5 * 3_600_000, requests: 10, usdNano: 500_000n }],
    }));
    for (const customer of customers) {
      await addWalletCredit(redis, prefix, customer.id, 2_000n);
      const keyId = `key_${randomUUID().slice(0, 8)}`;
      const admitted = await limits.admit({ keyId, rpm: 100, tpm: 10_000, quotaNano: 5_000n, budget: null, reservationNano: 1_500n, tokens: 10, customerId: customer.id, customer });
      expect(admitted.verdict).toBe("admitted");
      await limits.settle({ keyId, tokens: 10, reservationNano: 1_500n, costNano: 700n, hasQuota: true, budget: null, heldTokens: 10, tokensHolder: admitted.tokensHolder, customerId: customer.id, customer: admitted.customer });
      expect(await readWallet(redis, prefix, customer.id)).toEqual({ creditedNano: 2_000n, spentNano: 700n, reservedNano: 0n });
      expect(await limits.readQuota(keyId, customer.id)).toEqual({ spent: 700n, reserved: 0n });
      expect((await limits.admit({ keyId, rpm: 100, tpm: 10_000, quotaNano: 5_000n, budget: null, reservationNano: 1_500n, tokens: 10, customerId: customer.id, customer })).verdict).toBe("balance_exhausted");
      const again = await limits.admit({ keyId, rpm: 100, tpm: 10_000, quotaNano: 5_000n, budget: null, reservationNano: 1_000n, customerId: customer.id, customer });
      expect(again.verdict).toBe("admitted");
      const held = { requestId: `req_${randomUUID().slice(0, 8)}`, keyId, reservationNano: "1000", tokens: 0, hasQuota: true, budget: null, leaseId: null, processTag: limits.processTag, customerId: customer.id, customer: again.customer! };
      expect(await releaseOrphanReservation(redis, prefix, held, 100n, 0)).toBe(true);
      expect(await readWallet(redis, prefix, customer.id)).toEqual({ creditedNano: 2_000n, spentNano: 800n, reservedNano: 0n });
    }
  });
});
