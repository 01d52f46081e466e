import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { createLogger } from "@gateway/logger";
import { startStateStack, type StateStack } from "./responses-state-stack.ts";

/**
 * The Conversations API and `conversation` on a Responses request (contract section 18, issue 37),
 * `POST /v1/responses/input_tokens`, and a conversation continued across a failover from an
 * Anthropic-shape target to an OpenAI one, all with the official `openai` SDK.
 */
let stack: StateStack;
let openai: OpenAI;
/** Every log line of the proxy, the control plane and the worker, at trace level. */
const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  stack = await startStateStack({ LOG_LEVEL: "trace" }, createLogger({ name: "responses-state", level: "trace", destination: capture }));
  ({ openai } = await stack.client());
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

const upstreamCalls = () => stack.simulator.stats.requests.filter((record) => record.path !== "/v1/models");
const lastUpstreamBody = () => JSON.stringify(upstreamCalls().at(-1)!.body);
const textOf = (response: OpenAI.Responses.Response) =>
  response.output.flatMap((item) => (item.type === "message" ? item.content : [])).map((part) => (part.type === "output_text" ? part.text : "")).join("");
const failure = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as InstanceType<typeof OpenAI.APIError>);

describe("conversations", () => {
  it("create with items, two responses in it on two shapes, items listed and paged, one added, read, deleted; metadata updated; deleted at last", async () => {
    const conversation = await openai.conversations.create({ items: [{ type: "message", role: "user", content: "My name is Ada." }], metadata: { topic: "names" } });
    expect(conversation).toMatchObject({ object: "conversation", metadata: { topic: "names" } });
    expect(conversation.id).toMatch(/^conv_/);

    const first = await openai.responses.create({ model: "claude-test", conversation: conversation.id, input: "What is my name?" });
    expect(upstreamCalls().at(-1)!.path).toBe("/v1/messages");
    expect(lastUpstreamBody()).toContain("My name is Ada.");
    const second = await openai.responses.stream({ model: "gpt-chat-only", conversation: { id: conversation.id }, input: "Say it again." }).finalResponse();
    expect(upstreamCalls().at(-1)!.path).toBe("/v1/chat/completions");
    const sent = lastUpstreamBody();
    for (const piece of ["My name is Ada.", "What is my name?", textOf(first).slice(0, 20), "Say it again."]) expect(sent).toContain(piece);
    // Its response is stored with the conversation named.
    expect(await openai.responses.retrieve(second.id)).toMatchObject({ conversation: { id: conversation.id } });

    // 1 item at creation, then each response's input and output: newest first by default.
    const items = (await openai.conversations.items.list(conversation.id, { limit: 100 })).data;
    expect(items).toHaveLength(5);
    expect(JSON.stringify(items.at(-1))).toContain("My name is Ada.");
    expect(JSON.stringify(items[1])).toContain("Say it again.");
    const page = await openai.conversations.items.list(conversation.id, { order: "asc", limit: 2, after: items.at(-1)!.id });
    expect(page.data.map((item) => item.id)).toEqual([items[3]!.id, items[2]!.id]);

    const added = await openai.conversations.items.create(conversation.id, { items: [{ type: "message", role: "user", content: "I live in London." }] });
    expect(added.data).toHaveLength(1);
    const addedId = added.data[0]!.id!;
    expect(await openai.conversations.items.retrieve(addedId, { conversation_id: conversation.id })).toMatchObject({ id: addedId, type: "message" });
    const third = await openai.responses.create({ model: "gpt-test", conversation: conversation.id, input: "Where do I live?" });
    expect(third.status).toBe("completed");
    expect(lastUpstreamBody()).toContain("I live in London.");

    const afterDelete = await openai.conversations.items.delete(addedId, { conversation_id: conversation.id });
    expect(afterDelete).toMatchObject({ id: conversation.id, object: "conversation" });
    expect((await failure(openai.conversations.items.retrieve(addedId, { conversation_id: conversation.id })))?.status).toBe(404);
    await openai.responses.create({ model: "gpt-test", conversation: conversation.id, input: "Again?" });
    expect(lastUpstreamBody()).not.toContain("I live in London.");

    const updated = await openai.conversations.update(conversation.id, { metadata: { topic: "places" } });
    expect(updated.metadata).toEqual({ topic: "places" });
    expect((await openai.conversations.retrieve(conversation.id)).metadata).toEqual({ topic: "places" });

    expect(await openai.conversations.delete(conversation.id)).toMatchObject({ id: conversation.id, deleted: true });
    expect((await failure(openai.conversations.retrieve(conversation.id)))?.status).toBe(404);
    const gone = await failure(openai.responses.create({ model: "gpt-test", conversation: conversation.id, input: "hi" }));
    expect([gone?.status, (gone?.error as { param?: string })?.param]).toEqual([404, "conversation"]);
  });

  it("is its vendor's alone: another vendor gets 404 for it, its items and a response in it; bad bodies are 400s", async () => {
    const conversation = await openai.conversations.create({ metadata: { owner: "test-vendor" } });
    const other = (await stack.client("other-vendor")).openai;
    expect((await failure(other.conversations.retrieve(conversation.id)))?.status).toBe(404);
    expect((await failure(other.conversations.items.list(conversation.id)))?.status).toBe(404);
    expect((await failure(other.conversations.delete(conversation.id)))?.status).toBe(404);
    expect((await failure(other.responses.create({ model: "gpt-test", conversation: conversation.id, input: "hi" })))?.status).toBe(404);
    expect((await openai.conversations.retrieve(conversation.id)).id).toBe(conversation.id);

    const both = await failure(openai.responses.create({ model: "gpt-test", conversation: conversation.id, previous_response_id: "resp_x", input: "hi" }));
    expect(both?.status).toBe(400);
    const badMetadata = await failure(openai.conversations.create({ metadata: { n: 1 as unknown as string } }));
    expect([badMetadata?.status, (badMetadata?.error as { param?: string })?.param]).toEqual([400, "metadata.n"]);
    const badItems = await failure(openai.conversations.items.create(conversation.id, { items: "nope" as never }));
    expect(badItems?.status).toBe(400);
    expect(upstreamCalls()).toHaveLength(0);
  });
});

describe("POST /v1/responses/input_tokens", () => {
  it("counts the request as count_tokens does, its previous response included; never calls an upstream", async () => {
    const alone = await openai.responses.inputTokens.count({ model: "gpt-test", input: "Hello there, how are you today?" });
    expect(alone).toMatchObject({ object: "response.input_tokens" });
    expect(alone.input_tokens).toBeGreaterThan(5);
    const stored = await openai.responses.create({ model: "claude-test", input: "A long story about a dragon who guarded a library of forgotten songs." });
    stack.simulator.stats.clear();
    const continued = await openai.responses.inputTokens.count({ model: "claude-test", previous_response_id: stored.id, input: "Hello there, how are you today?" });
    expect(continued.input_tokens).toBeGreaterThan(alone.input_tokens + 10);
    expect(upstreamCalls()).toHaveLength(0);
    const unknown = await failure(openai.responses.inputTokens.count({ model: "gpt-test", previous_response_id: "resp_unknown", input: "x" }));
    expect([unknown?.status, unknown?.code]).toEqual([400, "previous_response_not_found"]);
    expect((await failure(openai.responses.inputTokens.count({ model: "nope", input: "x" })))?.status).toBe(404);
  });
});

describe("failover mid-conversation", () => {
  it("turn 1 on the Anthropic target, turn 2 failed over to the OpenAI Responses target, turn 3 back: each gets the whole conversation", async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: "function", name: "lookup", strict: false, parameters: { type: "object", properties: { q: { type: "string" } } } }];
    const first = await openai.responses.create({ model: "mixed-test", input: "Look up the capital of Peru. #sim:tool=lookup", tools });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call")!;
    expect(call).toBeDefined();
    stack.simulator.faults.push({ match: { model: "mixed-anthropic" }, times: 1, behaviour: { failStatus: 503 } });
    const second = await openai.responses.create({ model: "mixed-test", previous_response_id: first.id, input: [{ type: "function_call_output", call_id: call.call_id, output: "Lima" }], tools });
    expect(textOf(second).length).toBeGreaterThan(0);
    const third = await openai.responses.stream({ model: "mixed-test", previous_response_id: second.id, input: "And of Chile?" }).finalResponse();
    expect(third.status).toBe("completed");
    const calls = upstreamCalls();
    expect(calls.map((record) => [record.model, record.path, record.outcome])).toEqual([
      ["mixed-anthropic", "/v1/messages", "ok"],
      ["mixed-anthropic", "/v1/messages", "failed"],
      ["mixed-openai", "/v1/responses", "ok"],
      ["mixed-anthropic", "/v1/messages", "ok"],
    ]);
    const failedOver = calls[2]!.body as { store: unknown; input: Record<string, unknown>[] };
    expect(failedOver.store).toBe(false);
    expect(JSON.stringify(failedOver)).not.toContain("previous_response_id");
    expect(failedOver.input.map((item) => item.type ?? "message")).toEqual(["message", "function_call", "function_call_output"]);
    expect(failedOver.input.every((item) => item.id === undefined)).toBe(true);
    const last = JSON.stringify(calls[3]!.body);
    for (const piece of ["Look up the capital of Peru.", call.call_id, "Lima", textOf(second).slice(0, 20), "And of Chile?"]) expect(last).toContain(piece);
  });
});

describe("stored content is never logged", () => {
  it("no log line of any process carries what the tests above stored (they logged, at trace level)", () => {
    expect(lines.length).toBeGreaterThan(0);
    for (const stored of ["My name is Ada.", "I live in London.", "dragon who guarded", "capital of Peru", "Lima"]) {
      expect(lines.filter((line) => line.includes(stored))).toEqual([]);
    }
  });
});
