import type { Request, Response } from "express";
import { GatewayError, hashSecret, parseUsdToNano } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { ControlPlaneServices } from "../services.ts";
import { mintKey, type MintKeyInput } from "../keys/key-service.ts";
import { findVendorCustomer } from "../customers/customer-service.ts";
import { createKeyBodySchema, keyListQuerySchema, type CreatedApiKeyObject } from "../vendors/api-schemas.ts";
import { hashRequest, readIdempotencyKey, responseCipher, runIdempotent } from "../vendors/idempotency.ts";
import { loadKeyActivity, toApiKeyObject } from "../vendors/key-object.ts";
import { NEWEST_FIRST, newestFirstAfter, newestFirstPosition, newestFirstPositionOf, readPageRequest, toList } from "../vendors/pagination.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/** POST /api/keys: mints a key in one of the vendor's server options (scope keys:create). */
export function createKeyRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  const cipher = responseCipher(services.config.IDEMPOTENCY_SECRET);
  return async (request: Request, response: Response): Promise<void> => {
    const { vendorId, tokenId } = vendorOf(request);
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const body = parseInput(createKeyBodySchema, request.body, "body");
    const actor = { vendorId, tokenId, requestId: request.requestId };
    // Unknown and other vendors' options get the same answer: nothing about them is revealed.
    const option = await prisma.serverOption.findFirst({ where: { name: body.server_option, vendors: { some: { vendorId } } } });
    if (!option) {
      throw new GatewayError("server_option_not_allowed", `Server option '${body.server_option}' is not assigned to this vendor.`, { param: "server_option" });
    }
    // A customer of another vendor is reported exactly like a missing one.
    if (body.customer_id !== null) await findVendorCustomer(prisma, vendorId, body.customer_id).catch(() => {
      throw new GatewayError("not_found", `No customer with id '${body.customer_id}'.`, { param: "customer_id" });
    });
    const input: MintKeyInput = {
      vendorId,
      serverOption: option.name,
      name: body.name,
      quotaNano: body.quota === null ? null : parseUsdToNano(body.quota),
      expiresAt: body.expires_at === null ? null : new Date(body.expires_at),
      rpm: body.rate_limits.rpm,
      tpm: body.rate_limits.tpm,
      metadata: body.metadata,
      budget: body.budget === null ? null : { limitNano: parseUsdToNano(body.budget.limit), period: body.budget.period },
      customerId: body.customer_id,
    };
    const mint = async (db: PrismaClient): Promise<CreatedApiKeyObject> => {
      const minted = await mintKey(db, services.records, input, actor);
      const { id, object, ...rest } = toApiKeyObject(minted.row, option);
      return { id, object, key: minted.plaintext, ...rest };
    };
    if (idempotencyKey === undefined) {
      response.status(201).json(await mint(prisma));
      return;
    }
    const scope = { vendorId, key: idempotencyKey, requestHash: hashRequest("POST /api/keys", request.body) };
    let minted: CreatedApiKeyObject | undefined;
    try {
      const result = await runIdempotent(prisma, cipher, scope, async (tx) => {
        // mintKey uses only the apiKey and serverOption delegates, which the transaction client has.
        minted = await mint(tx as unknown as PrismaClient);
        return minted;
      });
      if (result.replayed) response.setHeader("idempotent-replayed", "true");
      response.status(201).json(result.value);
    } catch (error) {
      if (minted) await forgetUncommittedKey(services, minted);
      throw error;
    }
  };
}

/**
 * The key's Redis record is written before the transaction commits; if the commit then fails the
 * row is gone and the record must go too, or proxies would accept a key Postgres never had.
 */
async function forgetUncommittedKey(services: ControlPlaneServices, minted: CreatedApiKeyObject): Promise<void> {
  const row = await services.db.prisma.apiKey.findUnique({ where: { id: minted.id }, select: { keyHash: true } }).catch(() => undefined);
  if (row !== null) return;
  await services.records.deleteKey(hashSecret(minted.key)).catch((error: unknown) => {
    services.logger.error({ err: (error as Error).message, keyId: minted.id }, "could not remove the Redis record of a key whose mint rolled back");
  });
}

const keyPosition = newestFirstPosition("key");

/** GET /api/keys: the vendor's keys, newest first, optionally by status or a search (scope keys:read). */
export function listKeysRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { vendorId } = vendorOf(request);
    const { limit, after } = readPageRequest(request.query, keyPosition);
    const { status, search, customer_id: customerId } = parseInput(keyListQuerySchema, request.query, "query");
    const rows = await services.db.prisma.apiKey.findMany({
      where: {
        vendorId,
        ...(status ? { status } : {}),
        ...(customerId ? { customerId } : {}),
        ...(search ? { AND: [{ OR: [{ name: { contains: search, mode: "insensitive" as const } }, { id: search }, { prefix: search }] }] } : {}),
        ...newestFirstAfter(after),
      },
      orderBy: NEWEST_FIRST,
      take: limit + 1,
      include: { serverOption: { select: { name: true, rpm: true, tpm: true } } },
    });
    const activity = await loadKeyActivity(services.db.prisma, rows.slice(0, limit));
    response.json(toList(rows, limit, (row) => toApiKeyObject(row, row.serverOption, activity.get(row.id)), newestFirstPositionOf));
  };
}
