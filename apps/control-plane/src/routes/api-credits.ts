import type { Request, Response } from "express";
import { formatUsd, newId, parseUsdToNano } from "@gateway/contracts";
import type { Prisma } from "@gateway/db";
import type { ControlPlaneServices } from "../services.ts";
import { readIdempotencyKey, responseCipher, runCreate } from "../vendors/idempotency.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { actorOf } from "../vendors/vendor-auth.ts";
import { creditWallet, walletBalanceNano } from "../wallet/credit-wallet.ts";
import { findVendorCustomer } from "../wallet/vendor-customer.ts";
import { grantBodySchema } from "../wallet/wallet-schemas.ts";
import { toWalletEntryObject, type WalletEntryObject } from "../wallet/wallet-objects.ts";

type GrantedWalletEntry = WalletEntryObject & { balance: string };


/**
 * POST /api/customers/{id}/credits (scope customers:write): a manual grant, `{"amount","reason"}`
 * -> 201 the wallet entry with the customer's balance after it. The entry, its audit entry
 * (`customer.credited`, with the token and request id) and the Redis credit happen together or
 * not at all; with an `Idempotency-Key` a retried grant is answered from the first, never credited twice.
 */
export function grantCreditRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  const cipher = responseCipher(services.config.IDEMPOTENCY_SECRET);
  const target = { redis: services.redis, prefix: services.config.REDIS_PREFIX };
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const actor = actorOf(request);
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const body = parseInput(grantBodySchema, request.body, "body");
    const amountNano = parseUsdToNano(body.amount);
    const grant = async (tx: Prisma.TransactionClient): Promise<GrantedWalletEntry> => {
      const customer = await findVendorCustomer(tx, actor.vendorId, request.params.id);
      // The audit entry first, the credit (and its Redis counter) last: nothing after it can roll back.
      const entryId = newId("we");
      await tx.auditEntry.create({
        data: {
          id: newId("aud"),
          vendorId: actor.vendorId,
          tokenId: actor.tokenId,
          requestId: actor.requestId,
          action: "customer.credited",
          keyId: null,
          changes: { customer_id: customer.id, wallet_entry_id: entryId, amount: formatUsd(amountNano), reason: body.reason },
        },
      });
      const entry = (await creditWallet(tx, target, { entryId, customerId: customer.id, kind: "grant", sourceId: null, amountNano, reason: body.reason, tokenId: actor.tokenId }))!;
      return { ...toWalletEntryObject(entry), balance: formatUsd(await walletBalanceNano(target, customer.id)) };
    };
    const route = `POST /api/customers/${request.params.id}/credits`;
    const result = await runCreate(prisma, cipher, { vendorId: actor.vendorId, idempotencyKey, route, body: request.body }, (tx) => grant(tx));
    if (result.replayed) response.setHeader("idempotent-replayed", "true");
    response.status(201).json(result.value);
  };
}
