import { z } from "zod";

/**
 * The responses-store queue (contract section 18): the proxy keeps stored Responses state in Redis
 * for a short while and sends every change here; the billing worker writes it to Postgres, the
 * store of record. One queue, consumed one job at a time, so a delete never overtakes the write it
 * deletes. Every job is idempotent (rows keyed by their ids), so a retried job changes nothing.
 * Job data carries stored content: it is never logged, by either side.
 */
export const RESPONSES_STORE_QUEUE = "responses-store";

/**
 * Whether `id` can name a stored response or conversation: every id the gateway stores is letters,
 * digits, `_` and `-`. Any other text (a NUL, a percent sign, 10 kB) is unknown without a read:
 * Postgres would refuse it as a key, and a plain 404 would become a 503.
 */
export function isStorableStateId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,200}$/.test(id);
}

export const RESPONSES_STORE_JOB = {
  storeResponse: "response.store",
  deleteResponse: "response.delete",
  saveConversation: "conversation.save",
  deleteConversation: "conversation.delete",
  addConversationItems: "conversation.items.add",
  deleteConversationItem: "conversation.item.delete",
} as const;

export const RESPONSES_STORE_JOB_OPTIONS = {
  attempts: 20,
  backoff: { type: "exponential", delay: 500 },
  removeOnComplete: { count: 1_000 },
  removeOnFail: false,
} as const;

/** A Responses item (message, function_call, function_call_output, reasoning, ...): kept as sent. */
const item = z.record(z.string(), z.unknown());

/** A stored response: its whole input (previous ones resolved), its output and the response object. */
export const storedResponseSchema = z.object({
  id: z.string().min(1).max(200),
  vendorId: z.string().min(1),
  apiKeyId: z.string().min(1),
  conversationId: z.string().nullable(),
  model: z.string(),
  /** Epoch milliseconds. */
  createdAt: z.number().int(),
  expiresAt: z.number().int(),
  response: z.record(z.string(), z.unknown()),
  input: z.array(item),
  output: z.array(item),
});
export type StoredResponse = z.infer<typeof storedResponseSchema>;

export const conversationItemSchema = z.object({ id: z.string().min(1), position: z.number().int().min(0), item });
export type StoredConversationItem = z.infer<typeof conversationItemSchema>;

export const storedConversationSchema = z.object({
  id: z.string().min(1),
  vendorId: z.string().min(1),
  apiKeyId: z.string().min(1),
  metadata: z.record(z.string(), z.string()),
  createdAt: z.number().int(),
  expiresAt: z.number().int(),
});
export type StoredConversation = z.infer<typeof storedConversationSchema>;

export const responsesStoreJobSchemas = {
  [RESPONSES_STORE_JOB.storeResponse]: storedResponseSchema,
  [RESPONSES_STORE_JOB.deleteResponse]: z.object({ id: z.string(), vendorId: z.string() }),
  [RESPONSES_STORE_JOB.saveConversation]: storedConversationSchema,
  [RESPONSES_STORE_JOB.deleteConversation]: z.object({ id: z.string(), vendorId: z.string() }),
  [RESPONSES_STORE_JOB.addConversationItems]: z.object({ conversationId: z.string(), vendorId: z.string(), items: z.array(conversationItemSchema) }),
  [RESPONSES_STORE_JOB.deleteConversationItem]: z.object({ conversationId: z.string(), vendorId: z.string(), itemId: z.string() }),
} as const;

export type ResponsesStoreJobName = keyof typeof responsesStoreJobSchemas;
export type ResponsesStoreJobData<Name extends ResponsesStoreJobName> = z.infer<(typeof responsesStoreJobSchemas)[Name]>;
