import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY } from "@gateway/simulator";
import { startStack, testGatewayYaml, type Stack } from "./stack.ts";
import { expectBilled, expectGeminiClientServed } from "./provider-billing.ts";

/**
 * Bedrock Converse through the gateway (contract section 17, issue 40): a `bedrock` upstream with
 * `api: converse` serving a non-Claude model id (`amazon.nova-pro-v1:0`), pointed at the simulator,
 * which verifies SigV4 and speaks Converse's JSON and event stream. The official openai and
 * anthropic clients reach it through the neutral core (the `bedrock-converse` shape): generate,
 * stream, tools over two steps, usage billed to the nano-dollar, failover to and from it.
 */
let stack: Stack;
let openai: OpenAI;
let anthropic: Anthropic;
let key: string;

const NOVA = "amazon.nova-pro-v1:0";
const TIMEOUTS = "timeouts: { connect_ms: 1000, first_byte_ms: 2000, response_ms: 3000 }";

function converseYaml(url: string): string {
  const upstreams = `  - { name: kind-converse, shape: bedrock, api: converse, base_url: "${url}", region: us-east-1, aws_access_key_id_env: CONVERSE_AWS_ID, aws_secret_access_key_env: CONVERSE_AWS_SECRET, ${TIMEOUTS} }`;
  const model = (name: string, targets: string) => `  - { name: ${name}, prices: { input: "2", output: "8" }, targets: [ ${targets} ] }`;
  const models = [
    model("nova", `{ upstream: kind-converse, model: "${NOVA}" }`),
    model("nova-first", "{ upstream: kind-converse, model: converse-first }, { upstream: sim-anthropic-a, model: plain-second, priority: 1 }"),
    model("nova-second", "{ upstream: sim-openai-a, model: plain-first }, { upstream: kind-converse, model: converse-second, priority: 1 }"),
  ];
  return testGatewayYaml(url)
    .replace("models:\n", `${upstreams}\nmodels:\n${models.join("\n")}\n`)
    .replace("server_options:\n", "server_options:\n  - { name: converse, models: [nova, nova-first, nova-second] }\n")
    .replace("server_options: [standard, premium]", "server_options: [standard, premium, converse]");
}

beforeAll(async () => {
  stack = await startStack({ CIRCUIT_FAILURE_THRESHOLD: "1000" });
  Object.assign(process.env, { CONVERSE_AWS_ID: SIM_AWS_ACCESS_KEY_ID, CONVERSE_AWS_SECRET: SIM_AWS_SECRET_ACCESS_KEY });
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(converseYaml(stack.simulator.url)));
  ({ key } = await stack.mintKey({ serverOption: "converse" }));
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
  for (const started = Date.now(); (await openai.models.retrieve("nova-second").catch(() => null))?.id !== "nova-second"; ) {
    if (Date.now() - started > 3_000) throw new Error("the proxy never loaded the Converse routes");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.stats.clear();
  stack.simulator.faults.clear();
});

describe("a bedrock upstream in Converse mode (amazon.nova-pro-v1:0)", () => {
  it("the openai client: a completion and a stream, billed as Converse reported", async () => {
    const { data, response } = await openai.chat.completions.create({ model: "nova", max_tokens: 32, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello there" }] }).withResponse();
    expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(data.choices[0]!.finish_reason).toBe("stop");
    expect(stack.simulator.stats.requests.at(-1)).toMatchObject({ model: NOVA, status: 200 });
    await expectBilled(stack, response.headers.get("x-request-id"), "kind-converse");
    const { data: stream, response: streamed } = await openai.chat.completions.create({ model: "nova", max_tokens: 32, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Stream it" }] }).withResponse();
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text.length).toBeGreaterThan(0);
    const event = await expectBilled(stack, streamed.headers.get("x-request-id"), "kind-converse");
    expect(usage).toMatchObject({ prompt_tokens: event.usage.inputTokens, completion_tokens: event.usage.outputTokens });
  });

  it("the anthropic client: a message and a stream", async () => {
    const { data, response } = await anthropic.messages.create({ model: "nova", max_tokens: 32, messages: [{ role: "user", content: "Hello there" }] }).withResponse();
    expect(data.type).toBe("message");
    expect(data.stop_reason).toBe("end_turn");
    await expectBilled(stack, response.headers.get("request-id") ?? response.headers.get("x-request-id"), "kind-converse");
    const final = await anthropic.messages.stream({ model: "nova", max_tokens: 32, messages: [{ role: "user", content: "Stream it" }] }).finalMessage();
    expect(final.content.length).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBe(stack.simulator.stats.requests.at(-1)!.usage!.output_tokens);
  });

  it("the openai client's Responses API: a response and a stream, through the same shape", async () => {
    const response = await openai.responses.create({ model: "nova", max_output_tokens: 32, instructions: "Be brief.", input: "Hello there", store: false });
    expect(response.status).toBe("completed");
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBe(stack.simulator.stats.requests.at(-1)!.usage!.output_tokens);
    const stream = await openai.responses.create({ model: "nova", max_output_tokens: 32, input: "Stream it", stream: true, store: false });
    let text = "";
    let completed = false;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = true;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(completed).toBe(true);
  });

  it("tools over two steps: the openai client, then the anthropic client streamed", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
    const first = await openai.chat.completions.create({ model: "nova", max_tokens: 64, tools, tool_choice: { type: "function", function: { name: "get_weather" } }, messages: [{ role: "user", content: "Weather in Lima?" }] });
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && typeof (JSON.parse(call.function.arguments) as { city?: unknown }).city).toBe("string");
    const second = await openai.chat.completions.create({ model: "nova", max_tokens: 64, tools, messages: [{ role: "user", content: "Weather in Lima?" }, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "18 C, cloudy" }] });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);

    const anthropicTools: Anthropic.Tool[] = [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
    const step = await anthropic.messages.stream({ model: "nova", max_tokens: 64, tools: anthropicTools, tool_choice: { type: "any" }, messages: [{ role: "user", content: "Weather in Oslo?" }] }).finalMessage();
    expect(step.stop_reason).toBe("tool_use");
    const use = step.content.find((block) => block.type === "tool_use")!;
    expect(use.type === "tool_use" && use.name).toBe("get_weather");
    const answer = await anthropic.messages.create({
      model: "nova",
      max_tokens: 64,
      tools: anthropicTools,
      messages: [{ role: "user", content: "Weather in Oslo?" }, { role: "assistant", content: step.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.type === "tool_use" ? use.id : "", content: "2 C, snow" }] }],
    });
    expect(answer.stop_reason).toBe("end_turn");
  });

  it("the Gemini client: a generation and a stream billed as Converse reported; function calling over two steps", async () => {
    await expectGeminiClientServed(stack, key, "nova", "kind-converse", NOVA);
  });

  it("what Converse cannot answer is a 400 naming the client's field, before any upstream call; a token count is the one 400 too", async () => {
    const refused = (body: Record<string, unknown>) => openai.chat.completions.create({ model: "nova", max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...body } as never).catch((error: unknown) => error);
    for (const [body, param] of [
      [{ n: 2 }, "n"],
      [{ response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } } }, "response_format"],
      [{ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }] }, "messages[0].content[0]"],
    ] as const) {
      const error = (await refused(body)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.message).toContain(param);
    }
    expect(stack.simulator.stats.requests).toHaveLength(0);
    // Token counts are not forwarded to Converse yet (Bedrock's CountTokens takes a converse input too): the one 400 naming model.
    const counted = await anthropic.messages.countTokens({ model: "nova", messages: [{ role: "user", content: "Count these words for me, please." }] }).catch((error: unknown) => error);
    expect(counted).toBeInstanceOf(Anthropic.BadRequestError);
    expect((counted as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: "invalid_request_error", param: "model" } });
  });

  it("failover: a ThrottlingException (429) and one inside the 200 stream fail over from it; a plain upstream's 500 fails over to it", async () => {
    stack.simulator.faults.push({ match: { model: "converse-first" }, times: 1, behaviour: { failStatus: 429 } });
    const message = await anthropic.messages.create({ model: "nova-first", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(message.type).toBe("message");
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.status])).toEqual([["converse-first", 429], ["plain-second", 200]]);

    stack.simulator.cloud.bedrockStreamExceptions.push("throttlingException");
    const { data: stream, response } = await openai.chat.completions.create({ model: "nova-first", max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] }).withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    const [event] = await stack.billingEvents(response.headers.get("x-request-id")!);
    expect(event!.attempts!.map((attempt) => [attempt.upstream, attempt.status])).toEqual([["kind-converse", 200], ["sim-anthropic-a", 200]]);
    expect(event!.attempts![0]!.cause).not.toBe("ok");

    stack.simulator.stats.clear();
    stack.simulator.faults.push({ match: { model: "plain-first" }, times: 1, behaviour: { failStatus: 500 } });
    const final = await anthropic.messages.stream({ model: "nova-second", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(final.content.length).toBeGreaterThan(0);
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.stream, record.status])).toEqual([["plain-first", true, 500], ["converse-second", true, 200]]);
  });
});
