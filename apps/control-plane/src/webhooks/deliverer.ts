import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { PrismaClient } from "@gateway/db";
import type { Logger } from "@gateway/logger";
import { SIGNATURE_HEADER, signatureHeader, type SecretBox } from "./signature.ts";
import { guardedLookup, refusedAddress } from "./url-safety.ts";

export interface DelivererOptions {
  prisma: PrismaClient;
  box: SecretBox;
  logger: Logger;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_MS: one attempt's wait for the answer's status line. */
  timeoutMs: number;
  /** WEBHOOK_RETRY_BASE_MS, WEBHOOK_RETRY_MAX_MS: the pause after attempt n is base x 2^(n-1), capped, 75-100 % of it (jitter). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** WEBHOOK_GIVE_UP_MS: after this long since the event, a delivery that failed again is `failed`. */
  giveUpMs: number;
  pollIntervalMs: number;
  /** Deliveries claimed and sent at once. */
  concurrency: number;
  /** The clock (tests inject one). */
  now?: () => number;
  random?: () => number;
}

interface ClaimedRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  body: string;
  attempts: number;
  created_at: Date;
  url: string;
  secret_ciphertext: string;
  webhook_status: string;
}

export interface AttemptResult {
  /** The HTTP status that came back; null for none (refused address, connect error, timeout). */
  status: number | null;
  error?: string;
}

/**
 * Sends due webhook deliveries (contract section 19), one loop per control plane process. Rows are
 * claimed in one statement (`FOR UPDATE SKIP LOCKED`, then `next_attempt_at` pushed past the
 * attempt's longest run and `attempts` counted), so two control planes never send one delivery at
 * the same time; a process that dies mid-attempt leaves the row due again once that lease ends. Each
 * attempt POSTs the stored body, signed now; a 2xx acknowledges it (`succeeded`), anything else or
 * no answer within the timeout schedules the next attempt with exponential backoff, until
 * `giveUpMs` after the event, when it is `failed`.
 */
export class WebhookDeliverer {
  private readonly options: DelivererOptions;
  private readonly now: () => number;
  private readonly random: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly lookup;

  constructor(options: DelivererOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.lookup = guardedLookup({ allowPrivate: options.allowPrivate });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void {
    if (!this.stopped && this.running === undefined) this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.drain()
        .catch((error: unknown) => this.options.logger.warn({ err: (error as Error).message }, "webhook deliverer pass failed"))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.options.pollIntervalMs);
        });
    }, delayMs);
    this.timer.unref?.();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && (await this.runOnce()) === this.options.concurrency);
  }

  /** Claims up to `concurrency` due deliveries, sends them, records each outcome; returns how many it claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((row) => this.deliver(row)));
    return claimed.length;
  }

  private async claim(): Promise<ClaimedRow[]> {
    const now = new Date(this.now());
    const leaseUntil = new Date(now.getTime() + this.options.timeoutMs + 30_000);
    return this.options.prisma.$queryRaw<ClaimedRow[]>`
      WITH due AS (
        SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ${now}::timestamptz
        ORDER BY next_attempt_at
        LIMIT ${this.options.concurrency}
        FOR UPDATE SKIP LOCKED
      ),
      claimed AS (
        UPDATE webhook_deliveries AS d SET attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}::timestamptz
        FROM due WHERE d.id = due.id
        RETURNING d.id, d.webhook_id, d.event_id, d.event, d.body, d.attempts, d.created_at
      )
      SELECT c.*, w.url, w.secret_ciphertext, w.status AS webhook_status
      FROM claimed AS c JOIN webhooks AS w ON w.id = c.webhook_id`;
  }

  private async deliver(row: ClaimedRow): Promise<void> {
    const { prisma, logger } = this.options;
    if (row.webhook_status !== "active") {
      await prisma.$executeRaw`UPDATE webhook_deliveries SET status = 'failed' WHERE id = ${row.id} AND status = 'pending'`;
      return;
    }
    let result: AttemptResult;
    try {
      const secret = this.options.box.open(row.webhook_id, row.secret_ciphertext);
      result = await this.send(row.url, row.body, signatureHeader(secret, row.body, Math.floor(this.now() / 1000)), row);
    } catch (error) {
      result = { status: null, error: (error as Error).message };
    }
    const now = this.now();
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await prisma.$executeRaw`
        UPDATE webhook_deliveries SET status = 'succeeded', response_status = ${result.status}, delivered_at = ${new Date(now)}::timestamptz
        WHERE id = ${row.id} AND status = 'pending'`;
      return;
    }
    const deadline = row.created_at.getTime() + this.options.giveUpMs;
    const fields = { deliveryId: row.id, webhookId: row.webhook_id, event: row.event, attempt: row.attempts, status: result.status, err: result.error };
    if (now >= deadline) {
      logger.warn(fields, "webhook delivery failed for good");
      await prisma.$executeRaw`
        UPDATE webhook_deliveries SET status = 'failed', response_status = ${result.status} WHERE id = ${row.id} AND status = 'pending'`;
      return;
    }
    const next = new Date(Math.min(now + this.backoffMs(row.attempts), deadline));
    logger.info({ ...fields, nextAttemptAt: next.toISOString() }, "webhook delivery failed; will retry");
    await prisma.$executeRaw`
      UPDATE webhook_deliveries SET response_status = ${result.status}, next_attempt_at = ${next}::timestamptz
      WHERE id = ${row.id} AND status = 'pending'`;
  }

  /** The pause after the `attempts`-th failed attempt. */
  backoffMs(attempts: number): number {
    const exponential = this.options.retryBaseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30);
    const capped = Math.min(exponential, this.options.retryMaxMs);
    return Math.round(capped * (0.75 + 0.25 * this.random()));
  }

  private send(url: string, body: string, signature: string, row: ClaimedRow): Promise<AttemptResult> {
    const target = new URL(url);
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    if (!this.options.allowPrivate && isIP(literal) !== 0 && refusedAddress(literal) !== null) {
      return Promise.resolve({ status: null, error: `${literal} is not a public address` });
    }
    const client = target.protocol === "https:" ? https : http;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = client.request(
        target,
        {
          method: "POST",
          lookup: this.lookup,
          agent: false,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "user-agent": "llm-gateway-webhooks/1",
            [SIGNATURE_HEADER]: signature,
            "x-gateway-event": row.event,
            "x-gateway-event-id": row.event_id,
            "x-gateway-delivery": row.id,
          },
        },
        (response) => {
          // The status line is the acknowledgement; the body is read and dropped.
          response.resume();
          response.on("error", () => {});
          finish({ status: response.statusCode ?? null });
          response.on("end", () => request.destroy());
        },
      );
      const timer = setTimeout(() => {
        finish({ status: null, error: `no answer within ${this.options.timeoutMs} ms` });
        request.destroy();
      }, this.options.timeoutMs);
      request.on("error", (error) => finish({ status: null, error: error.message }));
      request.end(body);
    });
  }
}
