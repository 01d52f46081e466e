import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { geminiGatewayYaml } from "./gemini-stack.ts";
import { SIMULATOR_SECRET, startStack, type Stack } from "./stack.ts";

/**
 * Gemini 3's thought signatures through clients of other shapes (shared/design/neutral-core.md
 * section 3.6), against a simulator in strict mode: it refuses, as Gemini 3 does, the first function
 * call of a turn replayed without its signature, and any signature it did not issue ("Corrupted
 * thought signature."). The anthropic SDK with thinking on sees Gemini's thoughts as a thinking block
 * signed with the call's signature; its final message echoed back as the assistant turn (as Claude
 * Code does) puts that very signature back on the function call. The Responses SDK with
 * `include: ["reasoning.encrypted_content"]` round-trips it the same way; sent to an Anthropic-shape
 * model, the Gemini-signed reasoning is dropped and listed in `x-gateway-dropped-params`.
 */
let stack: Stack;
let strict: Simulator;
let key: string;

const MODEL = "gemini3-strict";
const TAG = "gemini.signature:";
const ARGS = { city: "Lisbon" };
const DIRECTIVE = `Weather in Lisbon? #sim:tool=get_weather #sim:tool_args=${Buffer.from(JSON.stringify(ARGS)).toString("base64url")}`;
const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

beforeAll(async () => {
  stack = await startStack();
  strict = await startSimulator({ apiKey: SIMULATOR_SECRET, strict: true });
  // The Gemini test file plus one Gemini 3 model on the strict simulator, on the same key.
  const yaml = geminiGatewayYaml(stack.simulator.url)
    .replace("upstreams:\n", `upstreams:\n  - { name: sim-gemini-strict, shape: gemini, base_url: "${strict.url}/v1beta", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }\n`)
    .replace("models:\n", `models:\n  - name: ${MODEL}\n    prices: { input: "2.00", output: "12.00" }\n    capabilities: { max_output_tokens: 65536 }\n    targets: [ { upstream: sim-gemini-strict, model: gemini-3.1-pro-preview } ]\n`)
    .replace("{ name: gemini, models: [", `{ name: gemini, models: [${MODEL}, `);
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(yaml));
  key = (await stack.mintKey({ serverOption: "gemini" })).key;
  const deadline = Date.now() + 5_000;
  while ((await fetch(`${stack.proxy.url}/v1/models/${MODEL}`, { headers: { authorization: `Bearer ${key}` } })).status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => {
  await strict?.close();
  await stack?.close();
});
beforeEach(() => {
  strict.stats.clear();
  stack.simulator.stats.clear();
});

type GeminiBody = { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };

/** The model content the strict simulator got last, and whether it answered it. */
function lastModelTurn(): { parts: Array<Record<string, unknown>>; status: number | null | undefined } {
  const last = strict.stats.last!;
  const model = (last.body as GeminiBody).contents.find((content) => content.role === "model")!;
  return { parts: model.parts, status: last.status };
}

/** A signature the simulator issued (strict mode accepts no other but Google's skip sentinel). */
function expectIssued(signature: string): void {
  expect(Buffer.from(signature, "base64").toString("utf8")).toMatch(/^sim-thought-signature:/);
}

describe("Gemini 3 thought signatures through other shapes' clients", () => {
  it("the anthropic SDK with thinking: a thinking block with text, signed; the final message echoed back is accepted, the signature on its call", async () => {
    const anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
    const tools: Anthropic.Tool[] = [{ name: "get_weather", input_schema: weather as Anthropic.Tool.InputSchema }];
    const thinking = { type: "enabled" as const, budget_tokens: 2048 };
    const types: string[] = [];
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 4000, thinking, tools, messages: [{ role: "user", content: DIRECTIVE }] });
    stream.on("streamEvent", (event) => types.push(event.type === "content_block_delta" ? event.delta.type : event.type));
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const [block, use] = first.content as [Anthropic.ThinkingBlock, Anthropic.ToolUseBlock];
    expect(block.type).toBe("thinking");
    expect(block.thinking.length).toBeGreaterThan(0);
    expect(block.signature.startsWith(TAG)).toBe(true);
    expectIssued(block.signature.slice(TAG.length));
    expect(use).toMatchObject({ type: "tool_use", name: "get_weather", input: ARGS });
    // Anthropic's order: the signature arrives before the thinking block closes.
    expect(types.slice(0, 6)).toEqual(["message_start", "content_block_start", "thinking_delta", "thinking_delta", "thinking_delta", "thinking_delta"]);
    expect(types.indexOf("signature_delta")).toBe(types.indexOf("content_block_stop") - 1);

    const second = await anthropic.messages
      .stream({
        model: MODEL,
        max_tokens: 4000,
        thinking,
        tools,
        messages: [
          { role: "user", content: DIRECTIVE },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "21 degrees" }] },
        ],
      })
      .finalMessage();
    expect(second.stop_reason).toBe("end_turn");
    const { parts, status } = lastModelTurn();
    expect(status).toBe(200);
    expect(parts.find((part) => part.functionCall !== undefined)).toEqual({ functionCall: { id: use.id, name: "get_weather", args: ARGS }, thoughtSignature: block.signature.slice(TAG.length) });
  });

  it("the Responses SDK with include reasoning.encrypted_content: the signature round-trips; toward an Anthropic-shape model it is dropped and listed", async () => {
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [{ type: "function", name: "get_weather", parameters: weather, strict: false }];
    const include: OpenAI.Responses.ResponseIncludable[] = ["reasoning.encrypted_content"];
    const { data: first, response } = await openai.responses.create({ model: MODEL, input: DIRECTIVE, tools, include, store: false }).withResponse();
    // Gemini returns signed reasoning: the include is met, not listed as dropped.
    expect(response.headers.get("x-gateway-dropped-params") ?? "").not.toContain("include");
    const reasoning = first.output.find((item) => item.type === "reasoning") as OpenAI.Responses.ResponseReasoningItem;
    const call = first.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    expect(first.output.indexOf(reasoning)).toBeLessThan(first.output.indexOf(call));
    expect(reasoning.encrypted_content!.startsWith(TAG)).toBe(true);
    const signature = reasoning.encrypted_content!.slice(TAG.length);
    expectIssued(signature);

    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: DIRECTIVE }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: call.call_id, output: "21 degrees" }];
    const second = await openai.responses.create({ model: MODEL, input, tools, include, store: false });
    expect(second.status).toBe("completed");
    const { parts, status } = lastModelTurn();
    expect(status).toBe(200);
    expect(parts).toEqual([{ functionCall: { id: call.call_id, name: "get_weather", args: ARGS }, thoughtSignature: signature }]);

    // The same conversation on an Anthropic-shape model: Gemini's signature verifies nowhere there.
    const { response: onClaude } = await openai.responses.create({ model: "claude-test", input, tools, store: false }).withResponse();
    const at = input.indexOf(first.output.find((item) => item.type === "reasoning") as OpenAI.Responses.ResponseInputItem);
    expect(onClaude.headers.get("x-gateway-dropped-params")).toContain(`input[${at}]`);
    const sent = JSON.stringify(stack.simulator.stats.last!.body);
    expect(stack.simulator.stats.last!.path).toBe("/v1/messages");
    expect(sent).not.toContain(signature);
    expect(sent).not.toContain('"thinking"');
  });
});
