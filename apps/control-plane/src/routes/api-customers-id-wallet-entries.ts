import type { Request, Response } from "express";
import { z } from "zod";
import type { ControlPlaneServices } from "../services.ts";
import type { WalletEntryRow } from "../wallet/credit-wallet.ts";
import { findVendorCustomer } from "../wallet/vendor-customer.ts";
import { toWalletEntryObject } from "../wallet/wallet-objects.ts";
import { readPageRequest, toList } from "../vendors/pagination.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

// A cursor is the client's text: a date Postgres cannot store (year 0000) must be a 400, not a 500.
const entryPosition = z.object({
  createdAt: z.iso.datetime().refine((value) => Number(value.slice(0, 4)) >= 1970, "out of range"),
  id: z.string().startsWith("we_"),
});

/** GET /api/customers/{id}/wallet/entries (scope customers:read): the wallet's credits and debits, newest first. */
export function listWalletEntriesRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(prisma, vendorOf(request).vendorId, request.params.id);
    const { limit, after } = readPageRequest(request.query, entryPosition);
    const createdAt = after && new Date(after.createdAt);
    const rows = await prisma.walletEntry.findMany({
      where: { customerId: customer.id, ...(createdAt && after ? { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: after.id } }] } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
    });
    const asRow = (row: (typeof rows)[number]): WalletEntryRow => ({ id: row.id, customer_id: row.customerId, amount_nano: row.amountNano, kind: row.kind, reason: row.reason, source_id: row.sourceId, created_at: row.createdAt });
    response.json(toList(rows, limit, (row) => toWalletEntryObject(asRow(row)), (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id })));
  };
}
