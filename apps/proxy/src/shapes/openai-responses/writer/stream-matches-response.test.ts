import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import { payloads, runStream, sdkReadable, sseEvents } from "../../__fixtures__/fixtures.ts";
import { responseThrough, streamThrough } from "../../__fixtures__/pairs.ts";

const responseFromMessage = responseThrough("responses", "messages");
const responsesStreamFromMessages = streamThrough("responses", "messages");

/**
 * One Anthropic answer, whole or streamed, is one Responses answer: for any sequence of text
 * blocks (cited or not), tool calls (plain, namespaced, custom) and web searches (found or failed),
 * the output the official SDK assembles from the translated stream equals the translated JSON body
 * (the ids the gateway invents for message items aside).
 */
const request = {
  model: "m",
  input: "Hi",
  include: ["web_search_call.action.sources"],
  tools: [
    { type: "function", name: "exec_command", parameters: { type: "object" } },
    { type: "custom", name: "apply_patch" },
    { type: "namespace", name: "multi_agent_v1", description: "Sub-agents.", tools: [{ type: "function", name: "spawn_agent" }, { type: "custom", name: "notes" }] },
    { type: "web_search" },
  ],
};

type Block = Record<string, unknown>;

const words = fc.stringMatching(/^[A-Za-z ,.é"\\\n]{1,24}$/);
const url = fc.constantFrom("https://example.com/a", "https://example.org/b?q=1");
const citation = fc.record({ type: fc.constant("web_search_result_location"), url, title: words, cited_text: words, encrypted_index: fc.constant("Eo8B") });
const text = fc.record({ type: fc.constant("text"), text: words, citations: fc.option(fc.array(citation, { minLength: 1, maxLength: 2 }), { nil: undefined }) });
const toolUse = fc.oneof(
  fc.record({ type: fc.constant("tool_use"), name: fc.constantFrom("exec_command", "multi_agent_v1__spawn_agent", "unknown_tool"), input: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(words, fc.integer())) }),
  fc.record({ type: fc.constant("tool_use"), name: fc.constantFrom("apply_patch", "multi_agent_v1__notes"), input: fc.record({ input: words }) }),
);
const search = fc.record({ query: words, results: fc.option(fc.array(url, { maxLength: 2 }), { nil: null }) });
const step = fc.oneof(text, toolUse, search.map((value) => ({ type: "search", ...value })));

/** The blocks as one Anthropic message, with ids. */
function message(steps: Block[]): { content: Block[] } {
  const content: Block[] = [];
  steps.forEach((step, index) => {
    if (step.type === "search") {
      const id = `srvtoolu_${index}`;
      content.push({ type: "server_tool_use", id, name: "web_search", input: { query: step.query } });
      const results = step.results as string[] | null;
      content.push({
        type: "web_search_tool_result",
        tool_use_id: id,
        content: results === null ? { type: "web_search_tool_result_error", error_code: "unavailable" } : results.map((link) => ({ type: "web_search_result", url: link, title: "t", encrypted_content: "x" })),
      });
    } else if (step.type === "tool_use") content.push({ ...step, id: `toolu_${index}` });
    else content.push(step.citations === undefined ? { type: "text", text: step.text } : step);
  });
  return { content };
}

/** Splits `value` into up to three pieces, as an upstream streams text and JSON. */
function pieces(value: string, cut: number): string[] {
  if (value.length < 3) return [value];
  const a = 1 + (cut % (value.length - 1));
  const b = a + Math.floor((value.length - a) / 2);
  return [value.slice(0, a), value.slice(a, b), value.slice(b)].filter((piece) => piece.length > 0);
}

/** The same message as Anthropic's stream events. */
function stream(content: Block[], cut: number): string {
  const frames: string[] = [];
  const emit = (data: Record<string, unknown>) => frames.push(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
  emit({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } });
  content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        emit({ type: "content_block_start", index, content_block: block.citations === undefined ? { type: "text", text: "" } : { type: "text", text: "", citations: [] } });
        for (const citation of (block.citations as unknown[] | undefined) ?? []) emit({ type: "content_block_delta", index, delta: { type: "citations_delta", citation } });
        for (const piece of pieces(String(block.text), cut)) emit({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
        break;
      case "tool_use":
      case "server_tool_use":
        emit({ type: "content_block_start", index, content_block: { ...block, input: {} } });
        for (const piece of pieces(JSON.stringify(block.input), cut)) emit({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
        break;
      default:
        emit({ type: "content_block_start", index, content_block: block });
    }
    emit({ type: "content_block_stop", index });
  });
  emit({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 20, server_tool_use: { web_search_requests: 1 } } });
  emit({ type: "message_stop" });
  return frames.join("");
}

/** The output with the message ids the gateway invents set aside, and the SDK's own parse results (`parsed`, `parsed_arguments`) left out. */
function comparable(output: unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(output, (key, value: unknown) => (key === "parsed" || key === "parsed_arguments" ? undefined : value))).map((item: { type: string }) =>
    item.type === "message" ? { ...item, id: "msg" } : item,
  );
}

describe("Anthropic answers: stream and JSON agree", () => {
  it("property: the SDK's assembled stream output equals the JSON output", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.nat(), async (steps, cut) => {
        const whole = message(steps);
        const json = responseFromMessage({ id: "msg_1", model: "claude", stop_reason: "end_turn", usage: { input_tokens: 5, output_tokens: 20 }, ...whole }, request);
        const { text } = runStream(responsesStreamFromMessages(request), sseEvents(stream(whole.content, cut)));
        const completed = payloads(text).at(-1) as { type: string; response: { output: unknown[] } };
        expect(completed.type).toBe("response.completed");
        expect(comparable(completed.response.output)).toEqual(comparable(json.output as unknown[]));
        const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
        expect(comparable(final.output)).toEqual(comparable(json.output as unknown[]));
      }),
      { numRuns: 100 },
    );
  });
});
