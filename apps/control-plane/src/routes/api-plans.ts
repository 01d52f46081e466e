import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { createPlanBodySchema } from "../customers/customer-schemas.ts";
import { createPlan, toPlanObject } from "../customers/plan-service.ts";
import { NEWEST_FIRST, newestFirstAfter, newestFirstPosition, newestFirstPositionOf, readPageRequest, toList } from "../vendors/pagination.ts";
import { readIdempotencyKey, responseCipher, runCreate } from "../vendors/idempotency.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { actorOf, vendorOf } from "../vendors/vendor-auth.ts";

/** The public model names of the vendor's server options: what a plan may name. */
async function offeredModels(services: ControlPlaneServices, vendorId: string): Promise<Set<string>> {
  const rows = await services.db.prisma.serverOptionModel.findMany({ where: { serverOption: { vendors: { some: { vendorId } } } }, select: { model: { select: { name: true } } } });
  return new Set(rows.map((row) => row.model.name));
}

/** POST /api/plans (scope plans:write): 201 with the plan; a bad window, amount or model is a 400 naming the field; an `Idempotency-Key` creates it once and replays the first answer. */
export function createPlanRoute(services: ControlPlaneServices) {
  const cipher = responseCipher(services.config.IDEMPOTENCY_SECRET);
  return async (request: Request, response: Response): Promise<void> => {
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const body = parseInput(createPlanBodySchema, request.body, "body");
    const actor = actorOf(request);
    const offered = await offeredModels(services, actor.vendorId);
    const result = await runCreate(services.db.prisma, cipher, { vendorId: actor.vendorId, idempotencyKey, route: "POST /api/plans", body: request.body }, async (tx) =>
      toPlanObject(await createPlan(tx, actor, body, offered)),
    );
    if (result.replayed) response.setHeader("idempotent-replayed", "true");
    response.status(201).json(result.value);
  };
}

const planPosition = newestFirstPosition("plan");

/** GET /api/plans (scope customers:read): the vendor's plans, newest first. */
export function listPlansRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { vendorId } = vendorOf(request);
    const { limit, after } = readPageRequest(request.query, planPosition);
    const rows = await services.db.prisma.plan.findMany({
      where: { vendorId, ...newestFirstAfter(after) },
      orderBy: NEWEST_FIRST,
      take: limit + 1,
    });
    response.json(toList(rows, limit, toPlanObject, newestFirstPositionOf));
  };
}
