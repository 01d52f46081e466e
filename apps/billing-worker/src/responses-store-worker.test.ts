// The responses-store jobs against Postgres (contract section 18): idempotent writes keyed by ids,
// deletes scoped to the owning vendor, items going with their rows, and the retention sweep.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESPONSES_STORE_JOB, type StoredResponse } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { applyResponsesStoreJob, sweepExpiredResponses } from "./responses-store-worker.ts";
import { createTestEnvironment, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 2 });
}, 60_000);
afterAll(async () => {
  await db?.close();
  await environment?.cleanup();
});

const now = Date.now();
function stored(id: string, overrides: Partial<StoredResponse> = {}): StoredResponse {
  return {
    id,
    vendorId: "vnd_a",
    apiKeyId: "key_a",
    conversationId: null,
    model: "gpt-test",
    createdAt: now,
    expiresAt: now + 86_400_000,
    response: { id, object: "response", status: "completed" },
    input: [{ type: "message", role: "user", content: "hi" }],
    output: [{ id: "msg_1", type: "message", role: "assistant", content: [{ type: "output_text", text: "hello" }] }],
    ...overrides,
  };
}

describe("responses-store jobs", () => {
  it("a response is written once with its items however often its job runs; only its vendor deletes it, items with it", async () => {
    const apply = (name: string, data: unknown) => applyResponsesStoreJob(db.prisma, name, data);
    await apply(RESPONSES_STORE_JOB.storeResponse, stored("resp_1"));
    await apply(RESPONSES_STORE_JOB.storeResponse, stored("resp_1"));
    const row = await db.prisma.storedResponse.findUniqueOrThrow({ where: { id: "resp_1" }, include: { items: { orderBy: [{ kind: "asc" }, { position: "asc" }] } } });
    expect(row.items.map((item) => [item.kind, item.position])).toEqual([["input", 0], ["output", 0]]);
    await apply(RESPONSES_STORE_JOB.deleteResponse, { id: "resp_1", vendorId: "vnd_other" });
    expect(await db.prisma.storedResponse.count({ where: { id: "resp_1" } })).toBe(1);
    await apply(RESPONSES_STORE_JOB.deleteResponse, { id: "resp_1", vendorId: "vnd_a" });
    expect(await db.prisma.storedResponse.count({ where: { id: "resp_1" } })).toBe(0);
    expect(await db.prisma.storedResponseItem.count({ where: { responseId: "resp_1" } })).toBe(0);
  });

  it("conversations: saved, items appended once each, an item deleted by its vendor only, the conversation with its items", async () => {
    const apply = (name: string, data: unknown) => applyResponsesStoreJob(db.prisma, name, data);
    const conversation = { id: "conv_1", vendorId: "vnd_a", apiKeyId: "key_a", metadata: { topic: "x" }, createdAt: now, expiresAt: now + 86_400_000 };
    await apply(RESPONSES_STORE_JOB.saveConversation, conversation);
    const items = [0, 1].map((position) => ({ id: `msg_${position}`, position, item: { type: "message", role: "user", content: `m${position}` } }));
    await apply(RESPONSES_STORE_JOB.addConversationItems, { conversationId: "conv_1", vendorId: "vnd_a", items });
    await apply(RESPONSES_STORE_JOB.addConversationItems, { conversationId: "conv_1", vendorId: "vnd_a", items });
    // Another vendor's append or delete changes nothing.
    await apply(RESPONSES_STORE_JOB.addConversationItems, { conversationId: "conv_1", vendorId: "vnd_b", items: [{ id: "msg_x", position: 2, item: {} }] });
    await apply(RESPONSES_STORE_JOB.deleteConversationItem, { conversationId: "conv_1", vendorId: "vnd_b", itemId: "msg_0" });
    await apply(RESPONSES_STORE_JOB.saveConversation, { ...conversation, vendorId: "vnd_b", metadata: { topic: "stolen" } });
    expect(await db.prisma.conversation.findUniqueOrThrow({ where: { id: "conv_1" } })).toMatchObject({ vendorId: "vnd_a", metadata: { topic: "x" } });
    expect((await db.prisma.conversationItem.findMany({ where: { conversationId: "conv_1" }, orderBy: { position: "asc" } })).map((item) => item.id)).toEqual(["msg_0", "msg_1"]);
    await apply(RESPONSES_STORE_JOB.deleteConversationItem, { conversationId: "conv_1", vendorId: "vnd_a", itemId: "msg_0" });
    await apply(RESPONSES_STORE_JOB.saveConversation, { ...conversation, metadata: { topic: "y" } });
    expect(await db.prisma.conversation.findUniqueOrThrow({ where: { id: "conv_1" } })).toMatchObject({ metadata: { topic: "y" } });
    await apply(RESPONSES_STORE_JOB.deleteConversation, { id: "conv_1", vendorId: "vnd_a" });
    expect(await db.prisma.conversationItem.count({ where: { conversationId: "conv_1" } })).toBe(0);
  });

  it("an unknown job or bad data fails the job (it is retried, then kept in the failed set)", async () => {
    await expect(applyResponsesStoreJob(db.prisma, "response.nothing", {})).rejects.toThrow(/unknown responses-store job/);
    await expect(applyResponsesStoreJob(db.prisma, RESPONSES_STORE_JOB.storeResponse, { id: 5 })).rejects.toThrow();
  });

  it("the retention sweep deletes expired responses and conversations, items with them, and nothing else", async () => {
    const apply = (name: string, data: unknown) => applyResponsesStoreJob(db.prisma, name, data);
    await apply(RESPONSES_STORE_JOB.storeResponse, stored("resp_old", { expiresAt: now - 1_000 }));
    await apply(RESPONSES_STORE_JOB.storeResponse, stored("resp_new"));
    await apply(RESPONSES_STORE_JOB.saveConversation, { id: "conv_old", vendorId: "vnd_a", apiKeyId: "key_a", metadata: {}, createdAt: now, expiresAt: now - 1_000 });
    expect(await sweepExpiredResponses(db.prisma)).toBe(2);
    expect((await db.prisma.storedResponse.findMany({ select: { id: true } })).map((row) => row.id)).toEqual(["resp_new"]);
    expect(await db.prisma.storedResponseItem.count({ where: { responseId: "resp_old" } })).toBe(0);
    expect(await db.prisma.conversation.count({ where: { id: "conv_old" } })).toBe(0);
  });
});
