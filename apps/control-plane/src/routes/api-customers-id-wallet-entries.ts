import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import type { WalletEntryRow } from "../wallet/credit-wallet.ts";
import { findVendorCustomer } from "../wallet/vendor-customer.ts";
import { toWalletEntryObject } from "../wallet/wallet-objects.ts";
import { NEWEST_FIRST, newestFirstAfter, newestFirstPosition, newestFirstPositionOf, readPageRequest, toList } from "../vendors/pagination.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const entryPosition = newestFirstPosition("we");

/** GET /api/customers/{id}/wallet/entries (scope customers:read): the wallet's credits and debits, newest first. */
export function listWalletEntriesRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(prisma, vendorOf(request).vendorId, request.params.id);
    const { limit, after } = readPageRequest(request.query, entryPosition);
    const rows = await prisma.walletEntry.findMany({
      where: { customerId: customer.id, ...newestFirstAfter(after) },
      orderBy: NEWEST_FIRST,
      take: limit + 1,
    });
    const asRow = (row: (typeof rows)[number]): WalletEntryRow => ({ id: row.id, customer_id: row.customerId, amount_nano: row.amountNano, kind: row.kind, reason: row.reason, source_id: row.sourceId, created_at: row.createdAt });
    response.json(toList(rows, limit, (row) => toWalletEntryObject(asRow(row)), newestFirstPositionOf));
  };
}
