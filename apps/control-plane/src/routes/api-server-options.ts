import type { Request, Response } from "express";
import { z } from "zod";
import type { ControlPlaneServices } from "../services.ts";
import { readPageRequest, toList } from "../vendors/pagination.ts";
import { toServerOptionObject } from "../vendors/server-option-object.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const optionPosition = z.object({ name: z.string().min(1) });

/**
 * GET /api/server-options: the server options assigned to the vendor, by name, with their models,
 * effective prices and default rate limits. Any valid vendor token may call it.
 */
export function listServerOptionsRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { vendorId } = vendorOf(request);
    const { limit, after } = readPageRequest(request.query, optionPosition);
    const rows = await services.db.prisma.serverOption.findMany({
      where: { vendors: { some: { vendorId } }, ...(after ? { name: { gt: after.name } } : {}) },
      orderBy: { name: "asc" },
      take: limit + 1,
      include: { models: { include: { model: true } } },
    });
    response.json(toList(rows, limit, toServerOptionObject, (row) => ({ name: row.name })));
  };
}
