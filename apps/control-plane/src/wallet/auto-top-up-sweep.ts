import { runAutoTopUp, type AutoTopUpContext } from "./auto-top-up.ts";

/** Customers looked at per pass; more wait for the next pass. */
const BATCH = 1000;

/**
 * Runs auto top-up for every active customer that has one set and a saved card, every
 * `intervalMs` (AUTO_TOP_UP_INTERVAL_MS; 0: never, and never without STRIPE_SECRET_KEY).
 * `runAutoTopUp` charges only below the threshold, holds a per-customer Redis lock and ties
 * Stripe's idempotency key to the wallet's latest entry, so control plane replicas sweeping at
 * the same time charge a crossing once.
 */
export class AutoTopUpSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  private readonly context: AutoTopUpContext;
  private readonly intervalMs: number;

  constructor(context: AutoTopUpContext, intervalMs: number) {
    this.context = context;
    this.intervalMs = intervalMs;
  }

  start(): void {
    if (!this.context.stripe || this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  /** One pass; resolves to the number of customers credited. A pass still running is joined, not doubled. */
  runOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<number> {
    const customers = await this.context.prisma.customer.findMany({
      where: { status: "active", autoTopUpBelowNano: { not: null }, autoTopUpAmountNano: { not: null }, stripePaymentMethodId: { not: null } },
      select: { id: true },
      orderBy: { id: "asc" },
      take: BATCH,
    });
    let credited = 0;
    for (const { id } of customers) {
      try {
        if ((await runAutoTopUp(this.context, id)) === "credited") credited += 1;
      } catch (error) {
        this.context.logger.warn({ customerId: id, err: (error as Error).message }, "auto top-up pass failed for a customer");
      }
    }
    return credited;
  }
}
