import type { RedisClient } from "./connect.ts";
import { ADMIT_SCRIPT, SETTLE_SCRIPT } from "./limit-scripts.ts";
import { redisKeys, type RedisKeys } from "./redis-keys.ts";

export const RATE_WINDOW_MS = 60_000;

export type AdmitVerdict = "admitted" | "requests_limited" | "tokens_limited" | "quota_exhausted";

export interface AdmitInput {
  keyId: string;
  rpm: number | null;
  tpm: number | null;
  /** nano-USD; null = unlimited. */
  quotaNano: bigint | null;
  /** nano-USD held until the request settles. */
  reservationNano: bigint;
  now?: number;
}

export interface AdmitResult {
  verdict: AdmitVerdict;
  requestsUsed: number;
  tokensUsed: number;
  /** ms until the current rate window ends. */
  resetMs: number;
}

const VERDICTS: AdmitVerdict[] = ["admitted", "requests_limited", "tokens_limited", "quota_exhausted"];

type LimitCommands = {
  gatewayAdmit(...args: (string | number)[]): Promise<[number, number, number, number]>;
  gatewaySettle(...args: (string | number)[]): Promise<number>;
};

/**
 * Rate limits and quota counters in Redis, one script call per admission and one per settlement.
 * The proxy reads and writes through this class; the control plane rebuilds `spent` from the
 * Postgres ledger with `setSpent`.
 */
export class LimitStore {
  private readonly redis: RedisClient & LimitCommands;
  readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    if (!("gatewayAdmit" in redis)) {
      redis.defineCommand("gatewayAdmit", { numberOfKeys: 5, lua: ADMIT_SCRIPT });
      redis.defineCommand("gatewaySettle", { numberOfKeys: 2, lua: SETTLE_SCRIPT });
    }
    this.redis = redis as RedisClient & LimitCommands;
    this.keys = redisKeys(prefix);
  }

  async admit(input: AdmitInput): Promise<AdmitResult> {
    const now = input.now ?? Date.now();
    const window = Math.floor(now / RATE_WINDOW_MS);
    const elapsed = now - window * RATE_WINDOW_MS;
    const [verdict, requestsUsed, tokensUsed] = await this.redis.gatewayAdmit(
      this.keys.requestWindow(input.keyId, window),
      this.keys.requestWindow(input.keyId, window - 1),
      this.keys.tokenWindow(input.keyId, window),
      this.keys.tokenWindow(input.keyId, window - 1),
      this.keys.quota(input.keyId),
      input.rpm ?? 0,
      input.tpm ?? 0,
      elapsed,
      RATE_WINDOW_MS,
      input.quotaNano === null ? -1 : input.quotaNano.toString(),
      input.quotaNano === null ? "0" : input.reservationNano.toString(),
    );
    return { verdict: VERDICTS[verdict] ?? "admitted", requestsUsed, tokensUsed, resetMs: RATE_WINDOW_MS - elapsed };
  }

  async settle(input: { keyId: string; tokens: number; reservationNano: bigint; costNano: bigint; hasQuota: boolean; now?: number }): Promise<void> {
    const window = Math.floor((input.now ?? Date.now()) / RATE_WINDOW_MS);
    await this.redis.gatewaySettle(
      this.keys.tokenWindow(input.keyId, window),
      this.keys.quota(input.keyId),
      input.tokens,
      RATE_WINDOW_MS,
      input.reservationNano.toString(),
      input.costNano.toString(),
      input.hasQuota ? "1" : "0",
    );
  }

  /** The ledger's figure replaces the counter; reservations in flight are forgotten. */
  async setSpent(keyId: string, spentNano: bigint): Promise<void> {
    await this.redis.hset(this.keys.quota(keyId), { spent: spentNano.toString(), reserved: "0" });
  }

  async readQuota(keyId: string): Promise<{ spent: bigint; reserved: bigint }> {
    const [spent, reserved] = await this.redis.hmget(this.keys.quota(keyId), "spent", "reserved");
    return { spent: BigInt(spent ?? "0"), reserved: BigInt(reserved ?? "0") };
  }
}
