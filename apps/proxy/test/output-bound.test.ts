// One output bound through the real stack (contract section 14): what the upstream receives is
// exactly the bound, in one field; a value above the model's maximum is the 400 naming the field
// when the client named the model itself in its own shape (or under strict_params), and is lowered
// and listed in x-gateway-dropped-params through an alias or across shapes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import type { StatsRecord } from "@gateway/simulator";
import { startStack, gatewayYamlEditor, type Stack } from "./stack.ts";

const DROPPED = "x-gateway-dropped-params";

let stack: Stack;
let key: string;
let strictKey: string;

/**
 * The test gateway file plus an alias of claude-test (max 64000), and server options over the
 * models of both shapes: one lenient, one with strict_params.
 */
function boundGatewayYaml(simulatorUrl: string): string {
  const { replaceOnce, text } = gatewayYamlEditor(simulatorUrl);
  replaceOnce("  - name: claude-test\n", '  - name: claude-test\n    aliases: ["claude-bound-alias"]\n');
  replaceOnce(
    "server_options:\n",
    `server_options:
  - { name: bound, models: [gpt-test, claude-test, gpt-on-anthropic, claude-on-openai, image-test] }
  - { name: bound-strict, models: [gpt-on-anthropic, claude-test], strict_params: true }
`,
  );
  return text();
}

beforeAll(async () => {
  stack = await startStack();
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(boundGatewayYaml(stack.simulator.url)));
  key = (await stack.mintKey({ serverOption: "bound" })).key;
  strictKey = (await stack.mintKey({ serverOption: "bound-strict" })).key;
  // The re-applied file reaches the proxy through its routing refresh.
  const deadline = Date.now() + 5_000;
  while ((await post("/v1/messages", { model: "claude-bound-alias", max_tokens: 5, messages: user })).status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(() => stack.simulator.stats.clear());

const user = [{ role: "user", content: "Hi" }];

async function post(path: string, body: unknown, apiKey = key): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(`${stack.proxy.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

const upstreamCalls = (): StatsRecord[] => stack.simulator.stats.requests.filter((record) => !record.path.startsWith("/v1/models"));
/** The one upstream call the request made (the simulator's record of what it received). */
function upstreamBody(): Record<string, unknown> {
  const calls = upstreamCalls();
  expect(calls).toHaveLength(1);
  return calls[0]!.body as Record<string, unknown>;
}
/** The output-limit fields of an upstream body, and their values. */
const limits = (body: Record<string, unknown>) =>
  Object.fromEntries(["max_tokens", "max_completion_tokens", "max_output_tokens"].filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
const droppedOf = (headers: Headers) => (headers.get(DROPPED) ?? "").split(", ").filter((path) => path.length > 0);

describe("the one output bound, through the stack", () => {
  it("cross shape, max_tokens: 1 and max_completion_tokens: 2000: the Anthropic upstream gets exactly 2000, in max_tokens alone", async () => {
    const answer = await post("/v1/chat/completions", { model: "gpt-on-anthropic", max_tokens: 1, max_completion_tokens: 2000, messages: user });
    expect(answer.status).toBe(200);
    expect(limits(upstreamBody())).toEqual({ max_tokens: 2000 });
    expect(answer.headers.get(DROPPED)).toBeNull();
  });

  it("same shape, both fields: the OpenAI upstream gets the one the API obeys (max_completion_tokens), never a second limit", async () => {
    const answer = await post("/v1/chat/completions", { model: "gpt-test", max_tokens: 2000, max_completion_tokens: 1, messages: user });
    expect(answer.status).toBe(200);
    expect(limits(upstreamBody())).toEqual({ max_completion_tokens: 1 });
  });

  it("issue 35's overflow: max_tokens 1e15 beside max_completion_tokens 500 on a Claude model is bound 500, not a limiter error", async () => {
    const answer = await post("/v1/chat/completions", { model: "gpt-on-anthropic", max_tokens: 1e15, max_completion_tokens: 500, messages: user });
    expect(answer.status).toBe(200);
    expect(limits(upstreamBody())).toEqual({ max_tokens: 500 });
  });

  it("the model named in its own shape: above its maximum is the 400 naming the field, and nothing goes upstream", async () => {
    for (const [path, body, param] of [
      ["/v1/chat/completions", { model: "gpt-test", max_completion_tokens: 16385, messages: user }, "max_completion_tokens"],
      ["/v1/chat/completions", { model: "gpt-test", max_tokens: 1e15, messages: user }, "max_tokens"],
      ["/v1/messages", { model: "claude-test", max_tokens: 64001, messages: user }, "max_tokens"],
    ] as const) {
      const answer = await post(path, body);
      expect(answer.status, `${path} ${param}`).toBe(400);
      expect(JSON.stringify(answer.json)).toContain("invalid_request_error");
      expect(JSON.stringify(answer.json)).toContain("maximum output of");
      if (path === "/v1/chat/completions") expect(answer.json).toMatchObject({ error: { code: "invalid_body", param } });
    }
    expect(upstreamCalls()).toEqual([]);
  });

  it("through an alias, same shape: lowered to the maximum, listed, and the upstream gets the lowered value", async () => {
    const answer = await post("/v1/messages", { model: "claude-bound-alias", max_tokens: 128000, messages: user });
    expect(answer.status).toBe(200);
    expect(limits(upstreamBody())).toEqual({ max_tokens: 64000 });
    expect(droppedOf(answer.headers)).toEqual(["max_tokens"]);
  });

  it("across shapes (Claude Code's max_tokens: 32000 on a model served by OpenAI): lowered to the model's maximum and listed", async () => {
    const answer = await post("/v1/messages", { model: "claude-on-openai", max_tokens: 32000, messages: user });
    expect(answer.status).toBe(200);
    // claude-on-openai's targets are OpenAI-shape: the family's default maximum, 4096.
    expect(limits(upstreamBody())).toEqual({ max_completion_tokens: 4096 });
    expect(droppedOf(answer.headers)).toContain("max_tokens");

    stack.simulator.stats.clear();
    const responses = await post("/v1/responses", { model: "claude-test", input: "Hi", max_output_tokens: 100000 });
    expect(responses.status).toBe(200);
    expect(limits(upstreamBody())).toEqual({ max_tokens: 64000 });
    expect(droppedOf(responses.headers)).toContain("max_output_tokens");
  });

  it("no field: the upstream runs under the model's maximum (sent across shapes, the upstream's own default same shape)", async () => {
    expect((await post("/v1/responses", { model: "claude-test", input: "Hi" })).status).toBe(200);
    expect(limits(upstreamBody())).toEqual({ max_tokens: 64000 });
    stack.simulator.stats.clear();
    const same = await post("/v1/chat/completions", { model: "gpt-test", messages: user });
    expect(same.status).toBe(200);
    expect(limits(upstreamBody())).toEqual({});
    expect(same.headers.get(DROPPED)).toBeNull();
  });

  it("strict_params refuses what it would otherwise lower, across shapes and through an alias", async () => {
    const cross = await post("/v1/chat/completions", { model: "gpt-on-anthropic", max_completion_tokens: 5000, messages: user }, strictKey);
    expect(cross.status).toBe(400);
    // The drop-or-refuse rule's refusal (section 11), as for any other field strict_params keeps.
    expect(cross.json).toMatchObject({ error: { type: "invalid_request_error", code: "unsupported_feature", param: "max_completion_tokens" } });
    const alias = await post("/v1/messages", { model: "claude-bound-alias", max_tokens: 64001, messages: user }, strictKey);
    expect(alias.status).toBe(400);
    expect(JSON.stringify(alias.json)).toContain("max_tokens");
    expect(upstreamCalls()).toEqual([]);
  });

  it("malformed counts and a text request to an image model are 400s naming the field, never a 500", async () => {
    for (const [path, raw, param] of [
      ["/v1/chat/completions", '{"model":"gpt-on-anthropic","max_tokens":1e400,"max_completion_tokens":500,"messages":[{"role":"user","content":"Hi"}]}', "max_tokens"],
      ["/v1/chat/completions", '{"model":"gpt-test","n":1e400,"messages":[{"role":"user","content":"Hi"}]}', "n"],
      ["/v1/chat/completions", '{"model":"gpt-test","max_completion_tokens":2.5,"messages":[{"role":"user","content":"Hi"}]}', "max_completion_tokens"],
      ["/v1/chat/completions", '{"model":"image-test","messages":[{"role":"user","content":"Hi"}]}', "model"],
      ["/v1/responses", '{"model":"claude-test","input":"Hi","max_output_tokens":-1}', "max_output_tokens"],
    ] as const) {
      const answer = await post(path, raw);
      expect(answer.status, raw).toBe(400);
      expect(answer.json, raw).toMatchObject({ error: { type: "invalid_request_error", param } });
    }
    // NaN is no JSON at all: the body's own 400, before any field is read.
    const notJson = await post("/v1/chat/completions", '{"model":"gpt-test","max_tokens":NaN,"messages":[{"role":"user","content":"Hi"}]}');
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ error: { type: "invalid_request_error" } });
    const thinking = await post("/v1/messages", '{"model":"claude-test","max_tokens":100,"thinking":{"type":"enabled","budget_tokens":1e400},"messages":[{"role":"user","content":"Hi"}]}');
    expect(thinking.status).toBe(400);
    expect(JSON.stringify(thinking.json)).toContain("thinking.budget_tokens");
    expect(upstreamCalls()).toEqual([]);
  });

  it("any pair of chat limits across shapes: the upstream gets one max_tokens equal to the obeyed field capped at 4096, or the client a 400", async () => {
    const count = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(1e15, 0, -5, 1.5));
    await fc.assert(
      fc.asyncProperty(fc.option(count, { nil: undefined }), fc.option(count, { nil: undefined }), async (maxTokens, maxCompletionTokens) => {
        stack.simulator.stats.clear();
        const answer = await post("/v1/chat/completions", { model: "gpt-on-anthropic", max_tokens: maxTokens, max_completion_tokens: maxCompletionTokens, messages: user });
        const valid = (value: number | undefined) => value === undefined || (Number.isInteger(value) && value >= 1);
        if (!valid(maxTokens) || !valid(maxCompletionTokens)) {
          expect(answer.status).toBe(400);
          expect(upstreamCalls()).toEqual([]);
          return;
        }
        expect(answer.status).toBe(200);
        const obeyed = maxCompletionTokens ?? maxTokens;
        expect(limits(upstreamBody())).toEqual({ max_tokens: Math.min(obeyed ?? 4096, 4096) });
        const lowered = obeyed !== undefined && obeyed > 4096;
        expect(droppedOf(answer.headers).includes(maxCompletionTokens !== undefined ? "max_completion_tokens" : "max_tokens")).toBe(lowered);
      }),
      { numRuns: 30 },
    );
  });
});
