import { formatUsd, newId } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import { creditWallet, walletBalanceNano, type WalletTarget } from "./credit-wallet.ts";
import { codeInvalid, keyWithoutCustomer } from "./wallet-errors.ts";
import { hashRedemptionCode, newRedemptionCode } from "./wallet-ids.ts";

export interface CreatedCode {
  id: string;
  object: "redemption_code";
  code: string;
  amount: string;
  expires_at: string | null;
}

/** Mints `count` codes of one amount; the plaintexts are returned here once, only their hashes kept. */
export async function createRedemptionCodes(prisma: PrismaClient, vendorId: string, input: { count: number; amountNano: bigint; expiresAt: Date | null }): Promise<CreatedCode[]> {
  const codes = Array.from({ length: input.count }, () => ({ id: newId("rcd"), code: newRedemptionCode() }));
  await prisma.redemptionCode.createMany({
    data: codes.map(({ id, code }) => ({ id, vendorId, codeHash: hashRedemptionCode(code), prefix: code.slice(0, 7), amountNano: input.amountNano, expiresAt: input.expiresAt })),
  });
  return codes.map(({ id, code }) => ({ id, object: "redemption_code", code, amount: formatUsd(input.amountNano), expires_at: input.expiresAt?.toISOString() ?? null }));
}

export interface Redemption {
  object: "redemption";
  amount: string;
  balance: string;
}

/**
 * Redeems a code for the key's customer, exactly once across any number of concurrent attempts:
 * the conditional UPDATE ... WHERE redeemed_at IS NULL takes the row's lock, so of two redemptions
 * one updates it and the other, once the first commits, matches nothing (400 `code_invalid`); the
 * wallet entry (kind `code`, source = the code's id) is unique besides. A code is the vendor's:
 * another vendor's key cannot use it. A key without a customer leaves the code unused.
 */
export async function redeemCode(prisma: PrismaClient, target: WalletTarget, keyId: string, code: string): Promise<Redemption> {
  const key = await prisma.apiKey.findUnique({ where: { id: keyId }, select: { id: true, vendorId: true, customerId: true } });
  if (!key) throw codeInvalid();
  if (!key.customerId) throw keyWithoutCustomer();
  const customerId = key.customerId;
  const codeHash = hashRedemptionCode(code);
  const credited = await prisma.$transaction(
    async (tx) => {
      const claimed = await tx.$queryRaw<{ id: string; amount_nano: bigint }[]>`
        UPDATE redemption_codes
           SET redeemed_at = now(), redeemed_by_customer_id = ${customerId}, redeemed_by_key_id = ${key.id}
         WHERE code_hash = ${codeHash} AND vendor_id = ${key.vendorId}
           AND redeemed_at IS NULL AND (expires_at IS NULL OR expires_at > now())
        RETURNING id, amount_nano`;
      const row = claimed[0];
      if (!row) throw codeInvalid();
      const entry = await creditWallet(tx, target, { customerId, kind: "code", sourceId: row.id, amountNano: row.amount_nano, reason: `redemption code ${code.slice(0, 7)}` });
      if (!entry) throw codeInvalid();
      return row.amount_nano;
    },
    { maxWait: 10_000, timeout: 15_000 },
  );
  return { object: "redemption", amount: formatUsd(credited), balance: formatUsd(await walletBalanceNano(target, customerId)) };
}
