import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startStateStack, type StateStack } from "./responses-state-stack.ts";

/**
 * Stored Responses state for every model (contract section 18, issue 37), with the official
 * `openai` SDK: three turns with a tool call between, each continuing the last by
 * `previous_response_id`, on an OpenAI-shape model with the Responses API (same shape), one
 * without it (through Chat Completions), an Anthropic-shape model, and a model whose target fails
 * over to another shape mid-conversation. Each upstream gets the whole conversation, statelessly.
 */
let stack: StateStack;
let openai: OpenAI;

beforeAll(async () => {
  stack = await startStateStack();
  ({ openai } = await stack.client());
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

const TOOLS: OpenAI.Responses.Tool[] = [
  { type: "function", name: "get_weather", description: "The weather in a city", strict: false, parameters: { type: "object", properties: { city: { type: "string" } } } },
];

const upstreamCalls = () => stack.simulator.stats.requests.filter((record) => record.path !== "/v1/models");

function textOf(response: OpenAI.Responses.Response): string {
  return response.output.flatMap((item) => (item.type === "message" ? item.content : [])).map((part) => (part.type === "output_text" ? part.text : "")).join("");
}

/** The three turns: a question the model answers with a tool call, the tool's output, a thank-you. */
async function threeTurns(model: string, stream: boolean) {
  const create = async (body: OpenAI.Responses.ResponseCreateParamsNonStreaming): Promise<OpenAI.Responses.Response> => {
    if (!stream) return openai.responses.create(body);
    return openai.responses.stream({ ...body, stream: undefined }).finalResponse();
  };
  const first = await create({ model, input: "What is the weather in Paris? #sim:tool=get_weather", tools: TOOLS });
  const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
  expect(call, JSON.stringify(first.output)).toBeDefined();
  const second = await create({ model, previous_response_id: first.id, input: [{ type: "function_call_output", call_id: call!.call_id, output: "sunny, 21 C" }], tools: TOOLS });
  expect(textOf(second).length).toBeGreaterThan(0);
  const third = await create({ model, previous_response_id: second.id, input: "Thanks, and tomorrow?" });
  expect(textOf(third).length).toBeGreaterThan(0);
  return { first, second, third, call: call! };
}

/** What the upstream of the last call was sent, as text: the whole conversation, stateless. */
function lastUpstreamBody(): string {
  return JSON.stringify(upstreamCalls().at(-1)!.body);
}

describe.each([
  { model: "gpt-test", path: "/v1/responses" },
  { model: "gpt-chat-only", path: "/v1/chat/completions" },
  { model: "claude-test", path: "/v1/messages" },
])("previous_response_id on $model (upstream $path)", ({ model, path }) => {
  it.each([false, true])("three turns with a tool call between (stream: %s): every upstream call carries the whole conversation, statelessly", async (stream) => {
    const { first, second, third, call } = await threeTurns(model, stream);
    const calls = upstreamCalls();
    expect(calls.map((record) => record.path)).toEqual([path, path, path]);
    const sent = lastUpstreamBody();
    for (const piece of ["What is the weather in Paris?", call.call_id, "sunny, 21 C", textOf(second).slice(0, 20), "Thanks, and tomorrow?"]) expect(sent).toContain(piece);
    expect(sent).not.toContain("previous_response_id");
    if (path === "/v1/responses") expect(calls.every((record) => (record.body as { store?: unknown }).store === false)).toBe(true);

    // Each stored: retrieve gives the response as the API shows a stored one.
    const retrieved = await openai.responses.retrieve(third.id);
    expect(retrieved).toMatchObject({ id: third.id, object: "response", status: "completed", store: true, previous_response_id: second.id });
    expect(textOf(retrieved)).toBe(textOf(third));
    // (The SDK's stream helper adds `parsed_arguments` to the calls it returns; nothing else differs.)
    const asSent = first.output.map((item) => Object.fromEntries(Object.entries(item).filter(([name]) => name !== "parsed_arguments")));
    expect((await openai.responses.retrieve(first.id)).output).toEqual(asSent);

    // input_items: the whole input the third response was made from, newest first by default.
    const items: OpenAI.Responses.ResponseItem[] = [];
    for await (const item of openai.responses.inputItems.list(third.id)) items.push(item);
    const kinds = items.map((item) => item.type);
    expect(kinds[0]).toBe("message");
    expect(kinds).toContain("function_call");
    expect(kinds).toContain("function_call_output");
    expect(JSON.stringify(items[0])).toContain("Thanks, and tomorrow?");
    expect(JSON.stringify(items.at(-1))).toContain("What is the weather in Paris?");
  });
});

/**
 * A response as the client gets it: with `stream`, every event that carries the `response` object
 * (created, in_progress, completed), read raw so none is skipped, and the last one's response.
 */
async function liveResponses(body: OpenAI.Responses.ResponseCreateParamsNonStreaming, stream: boolean): Promise<{ final: OpenAI.Responses.Response; objects: OpenAI.Responses.Response[] }> {
  if (!stream) {
    const final = await openai.responses.create(body);
    return { final, objects: [final] };
  }
  const objects: OpenAI.Responses.Response[] = [];
  const types: string[] = [];
  for await (const event of await openai.responses.create({ ...body, stream: true })) {
    if ("response" in event) {
      objects.push(event.response);
      types.push(event.type);
    }
  }
  expect(types).toEqual(["response.created", "response.in_progress", "response.completed"]);
  return { final: objects.at(-1)!, objects };
}

/** A response without `output_text`, which the SDK adds to what `create` (not a stream event) and `retrieve` return. */
const withoutOutputText = ({ output_text: _text, ...response }: OpenAI.Responses.Response) => response;

describe.each([
  { model: "gpt-test", path: "/v1/responses" },
  { model: "claude-test", path: "/v1/messages" },
])("the live response object on $model (upstream $path)", ({ model, path }) => {
  it.each([false, true])("says store, previous_response_id and conversation as the client asked, like the stored copy (stream: %s)", async (stream) => {
    const first = await liveResponses({ model, input: "Remember the number 12." }, stream);
    for (const object of first.objects) expect(object).toMatchObject({ store: true, previous_response_id: null });
    const second = await liveResponses({ model, previous_response_id: first.final.id, input: "Which number?" }, stream);
    for (const object of second.objects) expect(object).toMatchObject({ store: true, previous_response_id: first.final.id });
    // The upstream was asked statelessly all the same.
    expect(upstreamCalls().map((record) => record.path)).toEqual([path, path]);
    if (path === "/v1/responses") expect(upstreamCalls().every((record) => (record.body as { store?: unknown }).store === false)).toBe(true);
    expect(lastUpstreamBody()).not.toContain("previous_response_id");
    // The stored copy is the object the client received.
    expect(withoutOutputText(await openai.responses.retrieve(second.final.id))).toEqual(withoutOutputText(second.final));

    // store: false continuing a stored response: said as asked, and not kept.
    const third = await liveResponses({ model, previous_response_id: second.final.id, input: "Once more?", store: false }, stream);
    for (const object of third.objects) expect(object).toMatchObject({ store: false, previous_response_id: second.final.id });
    expect(await openai.responses.retrieve(third.final.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);

    // In a conversation: its id, no previous response.
    const conversation = await openai.conversations.create({ items: [{ type: "message", role: "user", content: "My name is Ada." }] });
    const turn = await liveResponses({ model, conversation: conversation.id, input: "What is my name?" }, stream);
    for (const object of turn.objects) expect(object).toMatchObject({ store: true, previous_response_id: null, conversation: { id: conversation.id } });
    expect(withoutOutputText(await openai.responses.retrieve(turn.final.id))).toEqual(withoutOutputText(turn.final));
  });
});

describe("input_items pagination, delete, bad ids, tenancy", () => {
  it("pages with limit/after/order exactly like the API: data, first_id, last_id, has_more", async () => {
    const { third } = await threeTurns("gpt-test", false);
    const all = (await openai.responses.inputItems.list(third.id, { order: "asc", limit: 100 })).data;
    expect(all.length).toBe(5);
    const page1 = await openai.responses.inputItems.list(third.id, { order: "asc", limit: 2 });
    expect(page1.data.map((item) => item.id)).toEqual(all.slice(0, 2).map((item) => item.id));
    expect(page1.has_more).toBe(true);
    // The page as the API sends it (the SDK keeps only data and has_more).
    const raw = await fetch(`${stack.proxy.url}/v1/responses/${third.id}/input_items?order=asc&limit=2`, { headers: { authorization: `Bearer ${openai.apiKey}` } });
    expect(await raw.json()).toEqual({ object: "list", data: page1.data, first_id: all[0]!.id, last_id: all[1]!.id, has_more: true });
    const page2 = await openai.responses.inputItems.list(third.id, { order: "asc", limit: 2, after: all[1]!.id });
    expect(page2.data.map((item) => item.id)).toEqual(all.slice(2, 4).map((item) => item.id));
    const desc = await openai.responses.inputItems.list(third.id, { limit: 1 });
    expect(desc.data[0]!.id).toBe(all.at(-1)!.id);
    // The SDK's auto-pagination walks every page with `after`.
    const walked: string[] = [];
    for await (const item of openai.responses.inputItems.list(third.id, { order: "asc", limit: 2 })) walked.push(item.id!);
    expect(walked).toEqual(all.map((item) => item.id));
    const bad = await openai.responses.inputItems.list(third.id, { limit: 500 }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("delete: the response is gone for GET (404) and for continuing (400 previous_response_not_found)", async () => {
    const response = await openai.responses.create({ model: "claude-test", input: "remember 42" });
    const deleted = await openai.responses.delete(response.id);
    expect(deleted).toEqual({ id: response.id, object: "response", deleted: true });
    const gone = await openai.responses.retrieve(response.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    const again = await openai.responses.delete(response.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await openai.responses.create({ model: "claude-test", previous_response_id: response.id, input: "what was it?" }).catch((error: unknown) => error);
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ type: "invalid_request_error", code: "previous_response_not_found", param: "previous_response_id" });
  });

  it("an unknown id: 400 previous_response_not_found on continue, 404 on GET and input_items; no upstream call", async () => {
    const unknown = await openai.responses.create({ model: "gpt-test", previous_response_id: "resp_nope", input: "hi" }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect((unknown as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: "previous_response_not_found", param: "previous_response_id" });
    expect(await openai.responses.retrieve("resp_nope").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await openai.responses.inputItems.list("resp_nope").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const wrongType = await openai.responses.create({ model: "gpt-test", previous_response_id: 7 as unknown as string, input: "hi" }).catch((error: unknown) => error);
    expect(wrongType).toBeInstanceOf(OpenAI.BadRequestError);
    expect(upstreamCalls()).toHaveLength(0);
  });

  it("another vendor's response: 404 on GET and delete, 400 previous_response_not_found on continue; another key of the same vendor may continue it", async () => {
    const response = await openai.responses.create({ model: "gpt-test", input: "my secret is 7" });
    const other = (await stack.client("other-vendor")).openai;
    expect(await other.responses.retrieve(response.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await other.responses.delete(response.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await other.responses.create({ model: "gpt-test", previous_response_id: response.id, input: "what is my secret?" }).catch((error: unknown) => error);
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: "previous_response_not_found", param: "previous_response_id" });
    const sibling = (await stack.client()).openai;
    const next = await sibling.responses.create({ model: "gpt-test", previous_response_id: response.id, input: "what is my secret?" });
    expect(next.status).toBe("completed");
    expect(lastUpstreamBody()).toContain("my secret is 7");
    // Still the owner's.
    expect((await openai.responses.retrieve(response.id)).id).toBe(response.id);
  });

  it("store: false keeps nothing: GET is a 404 and continuing it is the 400", async () => {
    const response = await openai.responses.create({ model: "gpt-test", input: "forget me", store: false });
    expect(await openai.responses.retrieve(response.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await openai.responses.create({ model: "gpt-test", previous_response_id: response.id, input: "?" }).catch((error: unknown) => error);
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe("Postgres is the store of record", () => {
  it("once the Redis copy is gone, the response is read back through the control plane (written by the worker) and continued", async () => {
    const response = await openai.responses.create({ model: "claude-test", input: "the code word is heliotrope" });
    const row = await waitFor(() => stack.controlPlane.services.db.prisma.storedResponse.findUnique({ where: { id: response.id }, include: { items: true } }));
    expect(row.items.map((item) => item.kind).sort()).toEqual(["input", "output"]);
    await stack.redis.del(`${stack.prefix}:responses-state:resp:${response.id}`);
    expect((await openai.responses.retrieve(response.id)).output).toEqual(response.output);
    const next = await openai.responses.create({ model: "gpt-chat-only", previous_response_id: response.id, input: "which word?" });
    expect(next.status).toBe("completed");
    expect(lastUpstreamBody()).toContain("heliotrope");
    // A delete reaches Postgres too.
    await openai.responses.delete(response.id);
    await waitFor(async () => ((await stack.controlPlane.services.db.prisma.storedResponse.findUnique({ where: { id: response.id } })) === null ? true : null));
  });
});

/** Polls `read` until it gives a value (the worker writes within milliseconds; 5 s at most). */
async function waitFor<T>(read: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting for the store of record");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("encrypted reasoning (contract section 18)", () => {
  it("a kept request asks a same-shape reasoning upstream for its encrypted reasoning, and the next turn replays it; nothing is asked of a model without reasoning or for store: false", async () => {
    const bodyOfLastCall = () => upstreamCalls().at(-1)!.body as Record<string, unknown>;
    const { data: first, response } = await openai.responses.create({ model: "gpt-reasoning", input: "Think about Paris." }).withResponse();
    expect(bodyOfLastCall().include).toEqual(["reasoning.encrypted_content"]);
    // Asked by the gateway, not the client: nothing is listed as dropped.
    expect(response.headers.get("x-gateway-dropped-params")).toBeNull();
    const reasoning = first.output.find((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === "reasoning");
    expect(reasoning?.encrypted_content).toEqual(expect.any(String));

    const second = await openai.responses.stream({ model: "gpt-reasoning", previous_response_id: first.id, input: "And Rome?" }).finalResponse();
    const sent = bodyOfLastCall();
    expect(sent.include).toEqual(["reasoning.encrypted_content"]);
    const replayed = (sent.input as Record<string, unknown>[]).filter((item) => item.type === "reasoning");
    expect(replayed.map((item) => item.encrypted_content)).toEqual([reasoning!.encrypted_content]);
    expect(second.output.some((item) => item.type === "reasoning")).toBe(true);

    await openai.responses.create({ model: "gpt-reasoning", input: "Not kept.", store: false });
    expect(bodyOfLastCall().include).toBeUndefined();
    await openai.responses.create({ model: "gpt-test", input: "No reasoning here." });
    expect(bodyOfLastCall().include).toBeUndefined();
  });
});
