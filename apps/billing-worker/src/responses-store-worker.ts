import { Worker, type Job } from "bullmq";
import { RESPONSES_STORE_JOB, RESPONSES_STORE_QUEUE, responsesStoreJobSchemas, type ResponsesStoreJobData, type ResponsesStoreJobName } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { BillingWorkerServices } from "./services.ts";

/** How often expired stored responses and conversations are deleted (RESPONSES_RETENTION_DAYS, set by the proxy per row). */
const SWEEP_INTERVAL_MS = 10 * 60_000;
/** Rows deleted per statement by the sweeper, so a large backlog never holds one long transaction. */
const SWEEP_BATCH = 1_000;

type Json = Parameters<PrismaClient["storedResponse"]["create"]>[0]["data"]["response"];
const json = (value: unknown) => value as Json;

/**
 * Writes the responses-store queue (contract section 18) to Postgres, the store of record: stored
 * responses with their items, conversations with theirs. One job at a time (concurrency 1), so the
 * jobs of one conversation or response apply in the order the proxy sent them; every write is
 * keyed by its ids, so a retried job is a no-op. Deletes are scoped to the vendor that owns the
 * row. Only ids reach the log: stored content never does.
 */
export async function applyResponsesStoreJob(prisma: PrismaClient, name: string, data: unknown): Promise<void> {
  const schema = responsesStoreJobSchemas[name as ResponsesStoreJobName];
  if (!schema) throw new Error(`unknown responses-store job ${name}`);
  const parsed = schema.parse(data);
  switch (name as ResponsesStoreJobName) {
    case RESPONSES_STORE_JOB.storeResponse: {
      const row = parsed as ResponsesStoreJobData<typeof RESPONSES_STORE_JOB.storeResponse>;
      const items = [
        ...row.input.map((item, position) => ({ responseId: row.id, kind: "input", position, item: json(item) })),
        ...row.output.map((item, position) => ({ responseId: row.id, kind: "output", position, item: json(item) })),
      ];
      await prisma.$transaction([
        prisma.storedResponse.createMany({
          data: [{ id: row.id, vendorId: row.vendorId, apiKeyId: row.apiKeyId, conversationId: row.conversationId, model: row.model, response: json(row.response), createdAt: new Date(row.createdAt), expiresAt: new Date(row.expiresAt) }],
          skipDuplicates: true,
        }),
        prisma.storedResponseItem.createMany({ data: items, skipDuplicates: true }),
      ]);
      return;
    }
    case RESPONSES_STORE_JOB.deleteResponse: {
      const row = parsed as ResponsesStoreJobData<typeof RESPONSES_STORE_JOB.deleteResponse>;
      await prisma.storedResponse.deleteMany({ where: { id: row.id, vendorId: row.vendorId } });
      return;
    }
    case RESPONSES_STORE_JOB.saveConversation: {
      const row = parsed as ResponsesStoreJobData<typeof RESPONSES_STORE_JOB.saveConversation>;
      const fields = { metadata: json(row.metadata), expiresAt: new Date(row.expiresAt) };
      // Another vendor's conversation of the same id is never changed.
      const existing = await prisma.conversation.findUnique({ where: { id: row.id }, select: { vendorId: true } });
      if (existing !== null && existing.vendorId !== row.vendorId) return;
      await prisma.conversation.upsert({
        where: { id: row.id },
        create: { id: row.id, vendorId: row.vendorId, apiKeyId: row.apiKeyId, createdAt: new Date(row.createdAt), ...fields },
        update: fields,
      });
      return;
    }
    case RESPONSES_STORE_JOB.deleteConversation: {
      const row = parsed as ResponsesStoreJobData<typeof RESPONSES_STORE_JOB.deleteConversation>;
      await prisma.conversation.deleteMany({ where: { id: row.id, vendorId: row.vendorId } });
      return;
    }
    case RESPONSES_STORE_JOB.addConversationItems: {
      const row = parsed as ResponsesStoreJobData<typeof RESPONSES_STORE_JOB.addConversationItems>;
      // Only into the vendor's own conversation (a deleted one takes nothing).
      const owner = await prisma.conversation.findFirst({ where: { id: row.conversationId, vendorId: row.vendorId }, select: { id: true } });
      if (!owner) return;
      await prisma.conversationItem.createMany({
        data: row.items.map((entry) => ({ conversationId: row.conversationId, id: entry.id, position: entry.position, item: json(entry.item) })),
        skipDuplicates: true,
      });
      return;
    }
    case RESPONSES_STORE_JOB.deleteConversationItem: {
      const row = parsed as ResponsesStoreJobData<typeof RESPONSES_STORE_JOB.deleteConversationItem>;
      await prisma.conversationItem.deleteMany({ where: { conversationId: row.conversationId, id: row.itemId, conversation: { vendorId: row.vendorId } } });
      return;
    }
  }
}

/** Deletes what RESPONSES_RETENTION_DAYS has expired (items go with their rows); returns the rows deleted. */
export async function sweepExpiredResponses(prisma: PrismaClient, now = new Date()): Promise<number> {
  let deleted = 0;
  for (const table of ["stored_responses", "conversations"] as const) {
    for (;;) {
      const count = await prisma.$executeRawUnsafe(`DELETE FROM "${table}" WHERE id IN (SELECT id FROM "${table}" WHERE expires_at < $1 LIMIT ${SWEEP_BATCH})`, now);
      deleted += count;
      if (count < SWEEP_BATCH) break;
    }
  }
  return deleted;
}

export interface ResponsesStoreWorker {
  worker: Worker;
  close(): Promise<void>;
}

/** The consumer of the responses-store queue and the retention sweeper, started with the billing worker. */
export function startResponsesStoreWorker(services: BillingWorkerServices): ResponsesStoreWorker {
  const { logger } = services;
  const prisma = services.db.prisma;
  const worker = new Worker(RESPONSES_STORE_QUEUE, (job: Job) => applyResponsesStoreJob(prisma, job.name, job.data), {
    connection: services.redis,
    prefix: services.queuePrefix,
    concurrency: 1,
  });
  // The error's name and code only: Prisma's messages can quote the statement's arguments, which hold stored content.
  worker.on("failed", (job: Job | undefined, error: Error) =>
    logger.warn({ jobId: job?.id, job: job?.name, attempt: job?.attemptsMade, err: error.name, code: (error as { code?: unknown }).code }, "responses-store job failed"));
  worker.on("error", (error: Error) => logger.warn({ err: error.message }, "responses-store worker error"));
  const sweep = () =>
    sweepExpiredResponses(prisma).then(
      (deleted) => deleted > 0 && logger.info({ deleted }, "expired stored responses and conversations deleted"),
      (error: unknown) => logger.warn({ err: (error as Error).message }, "responses retention sweep failed"),
    );
  const timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
  timer.unref();
  void sweep();
  return {
    worker,
    async close() {
      clearInterval(timer);
      await worker.close();
    },
  };
}
