import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY, SIM_GOOGLE_PROJECT } from "@gateway/simulator";
import { SIMULATOR_SECRET, startStack, testGatewayYaml, type Stack } from "./stack.ts";
import { expectBilled, expectGeminiClientServed } from "./provider-billing.ts";

/**
 * The providers people buy from, through the gateway (contract section 17, issue 40): Azure OpenAI
 * (deployment and v1 forms), Claude on Bedrock and on Vertex AI, each an upstream kind of the
 * gateway file pointed at the simulator, which checks each one's auth (api-key, SigV4, an OAuth token
 * from its own token endpoint) and speaks its wire. The official openai and anthropic clients call
 * them same-shape and translated: generate, stream, tools over two steps, usage billed as the
 * provider reported it, failover to and from them.
 */
let stack: Stack;
let key: string;
let openai: OpenAI;
let anthropic: Anthropic;

const TIMEOUTS = "timeouts: { connect_ms: 1000, first_byte_ms: 2000, response_ms: 3000 }";

function kindsYaml(url: string): string {
  const upstreams = [
    `  - { name: kind-azure, shape: azure, base_url: "${url}", secret_env: KIND_AZURE_KEY, api_version: "2024-10-21", ${TIMEOUTS} }`,
    `  - { name: kind-azure-v1, shape: azure, base_url: "${url}", secret_env: KIND_AZURE_KEY, ${TIMEOUTS} }`,
    `  - { name: kind-bedrock, shape: bedrock, base_url: "${url}", region: us-east-1, aws_access_key_id_env: KIND_AWS_ID, aws_secret_access_key_env: KIND_AWS_SECRET, ${TIMEOUTS} }`,
    `  - { name: kind-bedrock-chain, shape: bedrock, base_url: "${url}", region: us-east-1, ${TIMEOUTS} }`,
    `  - { name: kind-bedrock-wrong, shape: bedrock, base_url: "${url}", region: us-east-1, aws_access_key_id_env: KIND_AWS_ID, aws_secret_access_key_env: KIND_AWS_WRONG, ${TIMEOUTS} }`,
    `  - { name: kind-vertex-gemini, shape: vertex, publisher: google, base_url: "${url}/v1", project: ${SIM_GOOGLE_PROJECT}, region: us-central1, service_account_file_env: KIND_VERTEX_KEY_FILE, ${TIMEOUTS} }`,
    `  - { name: kind-groq, shape: openai, base_url: "${url}/v1", secret_env: TEST_SIMULATOR_KEY, compat: groq, ${TIMEOUTS} }`,
    `  - { name: kind-mistral, shape: openai, base_url: "${url}/v1", secret_env: TEST_SIMULATOR_KEY, compat: mistral, ${TIMEOUTS} }`,
    `  - { name: kind-vertex, shape: vertex, base_url: "${url}/v1", project: ${SIM_GOOGLE_PROJECT}, region: us-east5, service_account_file_env: KIND_VERTEX_KEY_FILE, ${TIMEOUTS} }`,
  ].join("\n");
  const model = (name: string, targets: string) => `  - { name: ${name}, prices: { input: "2", output: "8" }, targets: [ ${targets} ] }`;
  const models = [
    model("gpt-azure", "{ upstream: kind-azure, model: gpt-4o-mini-prod }"),
    model("gpt-azure-v1", "{ upstream: kind-azure-v1, model: gpt-4o-mini-v1 }"),
    model("claude-bedrock", "{ upstream: kind-bedrock, model: \"anthropic.claude-sonnet-4-5-20250929-v1:0\" }"),
    model("claude-bedrock-chain", "{ upstream: kind-bedrock-chain, model: bedrock-chain }"),
    model("claude-vertex", "{ upstream: kind-vertex, model: \"claude-sonnet-4-5@20250929\" }"),
    // Failover from a kind (a wrong AWS secret, a throttle) to another, and from a plain upstream to a kind.
    model("claude-kinds", "{ upstream: kind-bedrock, model: bedrock-first }, { upstream: kind-vertex, model: vertex-second, priority: 1 }"),
    model("claude-wrong-key", "{ upstream: kind-bedrock-wrong, model: bedrock-wrong }, { upstream: kind-vertex, model: vertex-backup, priority: 1 }"),
    model("claude-to-bedrock", "{ upstream: sim-anthropic-a, model: plain-first }, { upstream: kind-bedrock, model: bedrock-backup, priority: 1 }"),
    model("gemini-vertex", "{ upstream: kind-vertex-gemini, model: gemini-2.5-flash }"),
    model("gpt-groq", "{ upstream: kind-groq, model: llama-groq }"),
    model("gpt-mistral", "{ upstream: kind-mistral, model: mistral-small }"),
    model("gpt-azure-failover", "{ upstream: kind-azure, model: azure-first }, { upstream: sim-openai-a, model: plain-second, priority: 1 }"),
  ];
  const names = ["claude-bedrock-chain", "gpt-azure", "gpt-azure-v1", "claude-bedrock", "claude-vertex", "claude-kinds", "claude-wrong-key", "claude-to-bedrock", "gpt-azure-failover", "gpt-groq", "gpt-mistral", "gemini-vertex"];
  return testGatewayYaml(url)
    .replace("models:\n", `${upstreams}\nmodels:\n${models.join("\n")}\n`)
    .replace("server_options:\n", `server_options:\n  - { name: kinds, models: [${names.join(", ")}] }\n`)
    .replace("server_options: [standard, premium]", "server_options: [standard, premium, kinds]");
}

beforeAll(async () => {
  stack = await startStack({ CIRCUIT_FAILURE_THRESHOLD: "1000" });
  const folder = mkdtempSync(join(tmpdir(), "kinds-"));
  const keyFile = join(folder, "service-account.json");
  writeFileSync(keyFile, JSON.stringify(stack.simulator.cloud.serviceAccount(stack.simulator.url)));
  // The default AWS credential chain of a bedrock upstream that names no keys reads these first.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: SIM_AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SIM_AWS_SECRET_ACCESS_KEY });
  Object.assign(process.env, { KIND_AZURE_KEY: SIMULATOR_SECRET, KIND_AWS_ID: SIM_AWS_ACCESS_KEY_ID, KIND_AWS_SECRET: SIM_AWS_SECRET_ACCESS_KEY, KIND_AWS_WRONG: "not-the-secret", KIND_VERTEX_KEY_FILE: keyFile });
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(kindsYaml(stack.simulator.url)));
  ({ key } = await stack.mintKey({ serverOption: "kinds" }));
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
  for (const started = Date.now(); (await openai.models.retrieve("claude-kinds").catch(() => null))?.id !== "claude-kinds"; ) {
    if (Date.now() - started > 3_000) throw new Error("the proxy never loaded the kinds' routes");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.stats.clear();
  stack.simulator.faults.clear();
});

const KINDS = [
  { model: "gpt-azure", upstream: "kind-azure", served: "gpt-4o-mini-prod" },
  { model: "gpt-azure-v1", upstream: "kind-azure-v1", served: "gpt-4o-mini-v1" },
  { model: "claude-bedrock", upstream: "kind-bedrock", served: "anthropic.claude-sonnet-4-5-20250929-v1:0" },
  { model: "claude-vertex", upstream: "kind-vertex", served: "claude-sonnet-4-5@20250929" },
];

describe.each(KINDS)("$upstream", ({ model, upstream, served }) => {
  it("the openai client: a completion and a stream, billed as the provider reported", async () => {
    const { data, response } = await openai.chat.completions.create({ model, max_tokens: 32, messages: [{ role: "user", content: "Hello there" }] }).withResponse();
    expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(stack.simulator.stats.requests.at(-1)!.model).toBe(served);
    await expectBilled(stack, response.headers.get("x-request-id"), upstream);
    const { data: stream, response: streamed } = await openai.chat.completions.create({ model, max_tokens: 32, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Stream it" }] }).withResponse();
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text.length).toBeGreaterThan(0);
    const event = await expectBilled(stack, streamed.headers.get("x-request-id"), upstream);
    expect(usage).toMatchObject({ prompt_tokens: event.usage.inputTokens, completion_tokens: event.usage.outputTokens });
  });

  it("the anthropic client: a message and a stream", async () => {
    const { data, response } = await anthropic.messages.create({ model, max_tokens: 32, messages: [{ role: "user", content: "Hello there" }] }).withResponse();
    expect(data.type).toBe("message");
    await expectBilled(stack, response.headers.get("request-id") ?? response.headers.get("x-request-id"), upstream);
    const stream = anthropic.messages.stream({ model, max_tokens: 32, messages: [{ role: "user", content: "Stream it" }] });
    const final = await stream.finalMessage();
    expect(final.content.length).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBe(stack.simulator.stats.requests.at(-1)!.usage!.output_tokens);
  });

  it("tools over two steps (the openai client)", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
    const first = await openai.chat.completions.create({ model, max_tokens: 64, tools, tool_choice: { type: "function", function: { name: "get_weather" } }, messages: [{ role: "user", content: "Weather in Lima?" }] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    const second = await openai.chat.completions.create({
      model,
      max_tokens: 64,
      tools,
      messages: [{ role: "user", content: "Weather in Lima?" }, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "18 C, cloudy" }],
    });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
  });

  it("the Gemini client: a generation and a stream, billed as the provider reported; function calling over two steps", async () => {
    await expectGeminiClientServed(stack, key, model, upstream, served);
  });
});

describe("Bedrock without keys in the gateway file", () => {
  it("signs with the AWS SDKs' default credential chain (here its first link, the environment)", async () => {
    const message = await anthropic.messages.create({ model: "claude-bedrock-chain", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(message.type).toBe("message");
    expect(stack.simulator.stats.requests.at(-1)).toMatchObject({ model: "bedrock-chain", status: 200 });
  });
});

describe("token counts on Claude's providers", () => {
  it("the anthropic client's countTokens on Bedrock (CountTokens) and Vertex (count-tokens:rawPredict) equals the plain count", async () => {
    const params = { messages: [{ role: "user" as const, content: "Count these words for me, please." }] };
    const bedrock = await anthropic.messages.countTokens({ model: "claude-bedrock", ...params });
    const vertex = await anthropic.messages.countTokens({ model: "claude-vertex", ...params });
    expect(bedrock.input_tokens).toBeGreaterThan(0);
    expect(vertex.input_tokens).toBe(bedrock.input_tokens);
    expect(stack.simulator.stats.requests.map((record) => record.model)).toEqual(["anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5@20250929"]);
  });
});

describe("failover to and from the kinds, each failure counted against its own upstream", () => {
  const breaker = () => stack.proxy.services.breaker;
  const failures = (upstream: string) => stack.simulator.stats.requests.filter((record) => record.model === upstream);

  it("a Bedrock ThrottlingException fails over to Vertex", async () => {
    stack.simulator.faults.push({ match: { model: "bedrock-first" }, times: 1, behaviour: { failStatus: 429 } });
    const message = await anthropic.messages.create({ model: "claude-kinds", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(message.type).toBe("message");
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.status])).toEqual([["bedrock-first", 429], ["vertex-second", 200]]);
    expect(failures("vertex-second")).toHaveLength(1);
  });

  it("a ThrottlingException inside Bedrock's 200 stream fails over to Vertex before the client's first byte", async () => {
    stack.simulator.cloud.bedrockStreamExceptions.push("throttlingException");
    const { data: stream, response } = await anthropic.messages.stream({ model: "claude-kinds", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(response.status).toBe(200);
    expect((await stream.finalMessage()).content.length).toBeGreaterThan(0);
    const [event] = await stack.billingEvents(response.headers.get("request-id") ?? response.headers.get("x-request-id")!);
    expect(event!.attempts!.map((attempt) => [attempt.upstream, attempt.status])).toEqual([["kind-bedrock", 200], ["kind-vertex", 200]]);
    expect(event!.attempts![0]!.cause).not.toBe("ok");
  });

  it("a wrong AWS secret (403 from the signature check) fails over; only that upstream's circuit counts it", async () => {
    const response = await anthropic.messages.create({ model: "claude-wrong-key", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(response.data.type).toBe("message");
    const [event] = await stack.billingEvents(response.response.headers.get("request-id") ?? response.response.headers.get("x-request-id")!);
    expect(event!.attempts!.map((attempt) => [attempt.upstream, attempt.status])).toEqual([["kind-bedrock-wrong", 403], ["kind-vertex", 200]]);
    expect([...breaker().tracked()]).toContain("kind-bedrock-wrong");
    expect([...breaker().tracked()]).not.toContain("kind-vertex");
    // The metrics name the same upstream: a 4xx attempt on kind-bedrock-wrong, none failed on kind-vertex.
    const metrics = await (await fetch(`${stack.proxy.metricsHttp!.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_upstream_attempts_total\{[^}]*upstream="kind-bedrock-wrong"[^}]*cause="http_4xx"[^}]*\} [1-9]/);
    expect(metrics).not.toMatch(/gateway_upstream_attempts_total\{[^}]*upstream="kind-vertex"[^}]*cause="http_4xx"/);
  });

  it("an expired Vertex token is refused (401), dropped, and the retry gets a new one from the key file's token_uri", async () => {
    const before = stack.simulator.cloud.tokensIssued;
    stack.simulator.cloud.expireTokens();
    const { data, response } = await anthropic.messages.create({ model: "claude-vertex", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.type).toBe("message");
    const [event] = await stack.billingEvents(response.headers.get("request-id") ?? response.headers.get("x-request-id")!);
    expect(event!.attempts!.map((attempt) => [attempt.upstream, attempt.status])).toEqual([["kind-vertex", 401], ["kind-vertex", 200]]);
    expect(stack.simulator.cloud.tokensIssued).toBe(before + 1);
    // Still valid: the next request reuses it.
    await anthropic.messages.create({ model: "claude-vertex", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(stack.simulator.cloud.tokensIssued).toBe(before + 1);
  });

  it("a Vertex 429 and an Azure 429 with retry-after each fail over to the next target", async () => {
    stack.simulator.faults.push({ match: { model: "bedrock-first" }, times: 1, behaviour: { failStatus: 503 } });
    stack.simulator.faults.push({ match: { model: "vertex-second" }, times: 1, behaviour: { failStatus: 429 } });
    const kinds = await anthropic.messages.create({ model: "claude-kinds", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).withResponse();
    const [event] = await stack.billingEvents(kinds.response.headers.get("request-id") ?? kinds.response.headers.get("x-request-id")!);
    expect(event!.attempts!.map((attempt) => [attempt.upstream, attempt.status])).toEqual([["kind-bedrock", 503], ["kind-vertex", 429], ["kind-bedrock", 200]]);
    stack.simulator.faults.push({ match: { model: "azure-first" }, times: 1, behaviour: { failStatus: 429, retryAfter: 30 } });
    await openai.chat.completions.create({ model: "gpt-azure-failover", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(stack.simulator.stats.requests.slice(-2).map((record) => [record.model, record.status])).toEqual([["azure-first", 429], ["plain-second", 200]]);
  });

  it("from a plain Anthropic upstream to Bedrock, streamed", async () => {
    stack.simulator.faults.push({ match: { model: "plain-first" }, times: 1, behaviour: { failStatus: 500 } });
    const final = await anthropic.messages.stream({ model: "claude-to-bedrock", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(final.content.length).toBeGreaterThan(0);
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.stream, record.status])).toEqual([["plain-first", true, 500], ["bedrock-backup", true, 200]]);
  });
});

describe("compat profiles: what the vendor does not take is dropped and listed", () => {
  const chat = (model: string, extra: Record<string, unknown>) =>
    fetch(`${stack.proxy.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...extra }),
    });

  it("groq: the profile's fields never reach the vendor and are listed", async () => {
    const response = await chat("gpt-groq", { store: true, logit_bias: { "50256": -100 }, temperature: 0.5 });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-dropped-params")).toBe("store, logit_bias");
    const sent = stack.simulator.stats.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: "llama-groq", temperature: 0.5 });
    expect(sent).not.toHaveProperty("store");
    expect(sent).not.toHaveProperty("logit_bias");
  });

  it("a field the profile forgot: the vendor's 400 naming it, the request again without it, listed (streamed too)", async () => {
    stack.simulator.faults.push({ match: { model: "llama-groq" }, times: 1, behaviour: { failStatus: 400, failMessage: "property 'reasoning_format' is unsupported, did you mean 'response_format'?" } });
    const response = await chat("gpt-groq", { reasoning_format: "parsed", stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-dropped-params")).toBe("reasoning_format");
    expect(await response.text()).toContain("[DONE]");
    const [refused, served] = stack.simulator.stats.requests.slice(-2);
    expect([refused!.status, served!.status]).toEqual([400, 200]);
    expect(refused!.body).toHaveProperty("reasoning_format");
    expect(served!.body).not.toHaveProperty("reasoning_format");
    // A 400 that names no field the request holds is the client's answer, as for any upstream.
    stack.simulator.faults.push({ match: { model: "llama-groq" }, times: 1, behaviour: { failStatus: 400, failMessage: "property 'nothing_sent' is unsupported" } });
    expect((await chat("gpt-groq", {})).status).toBe(400);
  });

  it("mistral: the stream_options the gateway adds for usage never reach it", async () => {
    const response = await chat("gpt-mistral", { stream: true });
    expect(response.status).toBe(200);
    await response.text();
    expect(stack.simulator.stats.requests.at(-1)!.body).not.toHaveProperty("stream_options");
  });
});

describe("Gemini on Vertex (publisher: google)", () => {
  it("the Gemini client: a generation and a stream, billed with Vertex's usageMetadata; function calling over two steps", async () => {
    const ai = new GoogleGenAI({ apiKey: key, vertexai: false, httpOptions: { baseUrl: stack.proxy.url } });
    {
      const answer = await ai.models.generateContent({ model: "gemini-vertex", contents: "Say hello" });
      expect(answer.text!.length).toBeGreaterThan(0);
      expect(stack.simulator.stats.requests.at(-1)).toMatchObject({ model: "gemini-2.5-flash", stream: false });
      const [event] = await stack.billingEvents(answer.sdkHttpResponse!.headers!["x-request-id"]!);
      expect(event).toMatchObject({ upstream: "kind-vertex-gemini", estimated: false, usage: { inputTokens: answer.usageMetadata!.promptTokenCount, outputTokens: answer.usageMetadata!.candidatesTokenCount! + (answer.usageMetadata!.thoughtsTokenCount ?? 0) } });
      let text = "";
      for await (const chunk of await ai.models.generateContentStream({ model: "gemini-vertex", contents: "Stream it" })) text += chunk.text ?? "";
      expect(text.length).toBeGreaterThan(0);
      const tools = [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } }] }];
      const first = await ai.models.generateContent({ model: "gemini-vertex", contents: [{ role: "user", parts: [{ text: "Weather in Lima? #sim:tool=get_weather" }] }], config: { tools } });
      const call = first.functionCalls![0]!;
      expect(call.name).toBe("get_weather");
      const second = await ai.models.generateContent({
        model: "gemini-vertex",
        contents: [{ role: "user", parts: [{ text: "Weather in Lima?" }] }, first.candidates![0]!.content!, { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temperature: 18 } } }] }],
        config: { tools },
      });
      expect(second.text!.length).toBeGreaterThan(0);
    }
  });

  it("the openai client, translated to Gemini on Vertex: a completion and a stream", async () => {
    const completion = await openai.chat.completions.create({ model: "gemini-vertex", max_tokens: 32, messages: [{ role: "user", content: "Hello there" }] });
    expect(completion.choices[0]!.message.content!.length).toBeGreaterThan(0);
    let text = "";
    for await (const chunk of await openai.chat.completions.create({ model: "gemini-vertex", max_tokens: 32, stream: true, messages: [{ role: "user", content: "Stream it" }] })) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.stream])).toEqual([["gemini-2.5-flash", false], ["gemini-2.5-flash", true]]);
  });
});
