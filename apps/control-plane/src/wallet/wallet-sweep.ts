import { formatUsd } from "@gateway/contracts";
import { readWallet } from "@gateway/redis-store";
import { emitEvent } from "../webhooks/emit.ts";
import { PeriodicPass } from "../periodic-pass.ts";
import { runAutoTopUp, type AutoTopUpContext } from "./auto-top-up.ts";

/** Customers read per page of a pass. */
const PAGE = 500;
/** Without an auto top-up threshold, a balance under this share of everything credited is low (as key.quota_low's 20 %). */
const LOW_SHARE_PERCENT = 20n;

export interface WalletSweepReport {
  low: number;
  toppedUp: number;
}

/**
 * Every `intervalMs` (WALLET_CHECK_INTERVAL_MS; 0: never), each active prepaid customer's balance
 * as admissions see it (Redis: credited - spent) is compared with its low mark: its auto top-up
 * `below`, else 20 % of all it was credited. Below it:
 * - `customer.balance_low` is queued for the vendor's webhooks, named after the wallet's latest
 *   entry, so it fires once per crossing (a credit that refills it makes the next crossing new);
 * - with auto top-up and a saved card, the card is charged (`runAutoTopUp`: a per-customer Redis
 *   lock and Stripe's idempotency key tied to the same entry, so replicas sweeping at once charge once).
 */
export class WalletSweep extends PeriodicPass<WalletSweepReport> {
  private readonly context: AutoTopUpContext;

  constructor(context: AutoTopUpContext, intervalMs: number) {
    super("wallet sweep", intervalMs, context.logger);
    this.context = context;
  }

  protected async pass(): Promise<WalletSweepReport> {
    const { prisma, target, logger } = this.context;
    const report: WalletSweepReport = { low: 0, toppedUp: 0 };
    let after: string | undefined;
    for (;;) {
      const customers = await prisma.customer.findMany({
        where: { status: "active", billing: "prepaid", ...(after ? { id: { gt: after } } : {}) },
        select: { id: true, vendorId: true, autoTopUpBelowNano: true, autoTopUpAmountNano: true, stripePaymentMethodId: true },
        orderBy: { id: "asc" },
        take: PAGE,
      });
      for (const customer of customers) {
        try {
          const wallet = await readWallet(target.redis, target.prefix, customer.id);
          const balance = wallet.creditedNano - wallet.spentNano;
          const mark = customer.autoTopUpBelowNano ?? (wallet.creditedNano * LOW_SHARE_PERCENT) / 100n;
          if (wallet.creditedNano <= 0n || balance >= mark) continue;
          report.low += 1;
          const latest = await prisma.walletEntry.findFirst({ where: { customerId: customer.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } });
          await emitEvent(prisma, {
            vendorId: customer.vendorId,
            type: "customer.balance_low",
            eventId: `customer.balance_low:${customer.id}:${latest?.id ?? "none"}`,
            data: { customer_id: customer.id, balance: formatUsd(balance), threshold: formatUsd(mark) },
          });
          if (customer.autoTopUpAmountNano !== null && customer.stripePaymentMethodId !== null) {
            if ((await runAutoTopUp(this.context, customer.id)) === "credited") report.toppedUp += 1;
          }
        } catch (error) {
          logger.warn({ customerId: customer.id, err: (error as Error).message }, "wallet check failed for a customer");
        }
      }
      if (customers.length < PAGE) return report;
      after = customers.at(-1)!.id;
    }
  }
}
