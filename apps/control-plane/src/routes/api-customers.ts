import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { createCustomerBodySchema, customerListQuerySchema } from "../customers/customer-schemas.ts";
import { createCustomer, presentCustomer, type CustomerStores } from "../customers/customer-service.ts";
import { NEWEST_FIRST, newestFirstAfter, newestFirstPosition, newestFirstPositionOf, readPageRequest, toList } from "../vendors/pagination.ts";
import { readIdempotencyKey, responseCipher, runCreate } from "../vendors/idempotency.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { actorOf, vendorOf } from "../vendors/vendor-auth.ts";

export function customerStores(services: ControlPlaneServices): CustomerStores {
  return { records: services.records, redis: services.redis, prefix: services.config.REDIS_PREFIX };
}

/** POST /api/customers (scope customers:write): 201 with the customer object, audited; an `Idempotency-Key` creates it once and replays the first answer. */
export function createCustomerRoute(services: ControlPlaneServices) {
  const cipher = responseCipher(services.config.IDEMPOTENCY_SECRET);
  return async (request: Request, response: Response): Promise<void> => {
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const body = parseInput(createCustomerBodySchema, request.body, "body");
    const actor = actorOf(request);
    const result = await runCreate(services.db.prisma, cipher, { vendorId: actor.vendorId, idempotencyKey, route: "POST /api/customers", body: request.body }, async (tx) =>
      presentCustomer(tx, await createCustomer(tx, customerStores(services), actor, body)),
    );
    if (result.replayed) response.setHeader("idempotent-replayed", "true");
    response.status(201).json(result.value);
  };
}

const customerPosition = newestFirstPosition("cus");

/** GET /api/customers (scope customers:read): newest first, optionally by status or a search on name, email or id. */
export function listCustomersRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { vendorId } = vendorOf(request);
    const { limit, after } = readPageRequest(request.query, customerPosition);
    const { status, search } = parseInput(customerListQuerySchema.omit({ limit: true, cursor: true }), request.query, "query");
    const rows = await services.db.prisma.customer.findMany({
      where: {
        vendorId,
        ...(status ? { status } : {}),
        ...(search ? { AND: [{ OR: [{ name: { contains: search, mode: "insensitive" as const } }, { email: { contains: search, mode: "insensitive" as const } }, { id: search }] }] } : {}),
        ...newestFirstAfter(after),
      },
      orderBy: NEWEST_FIRST,
      take: limit + 1,
    });
    const page = await Promise.all(rows.slice(0, limit).map((row) => presentCustomer(services.db.prisma, row)));
    const list = toList(rows, limit, (row) => row.id, newestFirstPositionOf);
    response.json({ ...list, data: page });
  };
}
