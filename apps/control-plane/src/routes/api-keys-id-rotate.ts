import type { Request, Response } from "express";
import type { PrismaClient } from "@gateway/db";
import type { ControlPlaneServices } from "../services.ts";
import { rotateKey } from "../keys/key-changes.ts";
import { rotateKeyBodySchema, type CreatedApiKeyObject } from "../vendors/api-schemas.ts";
import { hashRequest, readIdempotencyKey, responseCipher, runIdempotent } from "../vendors/idempotency.ts";
import { presentKey } from "../vendors/key-object.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { actorOf } from "../vendors/vendor-auth.ts";

/**
 * POST /api/keys/{id}/rotate (scope keys:update): a new secret for the same key, shown once in
 * this response (and in replays of it under the same `Idempotency-Key`, so a client that lost the
 * answer still gets its key and the key is rotated once). The old secret is refused at once, or
 * after `grace_seconds`.
 */
export function rotateKeyRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  const cipher = responseCipher(services.config.IDEMPOTENCY_SECRET);
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const actor = actorOf(request);
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const body = parseInput(rotateKeyBodySchema, request.body, "body");
    const rotate = async (tx: PrismaClient): Promise<CreatedApiKeyObject> => {
      const { row, plaintext } = await rotateKey(tx, services.records, actor, request.params.id, body.grace_seconds);
      const { id, object, ...rest } = await presentKey(tx, row, row.serverOption);
      return { id, object, key: plaintext, ...rest };
    };
    if (idempotencyKey === undefined) {
      response.json(await prisma.$transaction((tx) => rotate(tx as unknown as PrismaClient), { maxWait: 10_000, timeout: 15_000 }));
      return;
    }
    const scope = { vendorId: actor.vendorId, key: idempotencyKey, requestHash: hashRequest(`POST /api/keys/${request.params.id}/rotate`, request.body) };
    const result = await runIdempotent(prisma, cipher, scope, (tx) => rotate(tx as unknown as PrismaClient));
    if (result.replayed) response.setHeader("idempotent-replayed", "true");
    response.json(result.value);
  };
}
