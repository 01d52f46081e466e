import { describe, expect, it } from "vitest";
import { ChatCompletionStream } from "openai/lib/ChatCompletionStream";
import { fixtureEvents, payloads, runStream, sdkReadable, sseEvents } from "../../__fixtures__/fixtures.ts";
import { streamThrough } from "../../__fixtures__/pairs.ts";

const chatStreamFromMessages = (showUsage: boolean) => streamThrough("chat", "messages")({ stream_options: { include_usage: showUsage } });

const translate = (name: string, showUsage = false) => runStream(chatStreamFromMessages(showUsage), fixtureEvents(`anthropic-messages/${name}.chunks.txt`));

describe("Anthropic stream events -> chat chunks", () => {
  it("text: the role first (on the first upstream event), finish_reason on the terminal chunk, [DONE] last", async () => {
    const { text, perEvent } = translate("text-cached");
    expect(payloads(perEvent[0]!)).toEqual([expect.objectContaining({ object: "chat.completion.chunk", choices: [expect.objectContaining({ delta: { role: "assistant", content: "" } })] })]);
    const chunks = payloads(text);
    expect(chunks.map((chunk) => (chunk.choices as { delta: unknown }[])[0]!.delta)).toEqual([{ role: "assistant", content: "" }, { content: "The capital" }, { content: " of France is Paris." }, {}]);
    expect((chunks.at(-1)!.choices as { finish_reason: string }[])[0]!.finish_reason).toBe("stop");
    expect(chunks.every((chunk) => !("usage" in chunk))).toBe(true);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const final = await ChatCompletionStream.fromReadableStream(sdkReadable(text)).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("The capital of France is Paris.");
  });

  it("include_usage: usage null on every chunk, then one usage chunk with choices [] before [DONE]", () => {
    const chunks = payloads(translate("text-cached", true).text);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 2034, completion_tokens: 10, total_tokens: 2044, prompt_tokens_details: { cached_tokens: 1800 } },
    });
  });

  it("text then tool_use: the call's first delta has index, id, type and name; the SDK assembles the call", async () => {
    const { text } = translate("text-then-tool");
    const deltas = payloads(text).flatMap((chunk) => ((chunk.choices as { delta: { tool_calls?: unknown[] } }[])[0]?.delta.tool_calls ?? []) as Record<string, unknown>[]);
    expect(deltas[0]).toEqual({ index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: "" } });
    expect(deltas.slice(1)).toEqual([
      { index: 0, function: { arguments: '{"city": "Pa' } },
      { index: 0, function: { arguments: 'ris"}' } },
    ]);
    const final = await ChatCompletionStream.fromReadableStream(sdkReadable(text)).finalChatCompletion();
    expect(final.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: { content: "I'll check the weather in Paris.", tool_calls: [{ id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: '{"city": "Paris"}' } }] },
    });
  });

  it("thinking: reasoning_content deltas, then the signed block in thinking_blocks, never in content", async () => {
    const { text } = translate("thinking-tool-use");
    const final = await ChatCompletionStream.fromReadableStream(sdkReadable(text)).finalChatCompletion();
    const message = final.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content ?? "").toBe("");
    expect(message.thinking_blocks).toEqual([
      { type: "thinking", thinking: "The user wants the weather in Paris; I should call the tool.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3b8Gz1EPs5Un0dC0pK5bQ" },
    ]);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("max_tokens -> finish_reason length", () => {
    const chunks = payloads(translate("max-tokens").text);
    expect((chunks.at(-1)!.choices as { finish_reason: string }[])[0]!.finish_reason).toBe("length");
  });
});

describe("a tool without input", () => {
  it("streams no JSON upstream; the chat arguments are {}", async () => {
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join("");
    const { text } = runStream(chatStreamFromMessages(false), sseEvents(sse));
    const final = await ChatCompletionStream.fromReadableStream(sdkReadable(text)).finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls![0]).toMatchObject({ id: "toolu_1", function: { name: "now", arguments: "{}" } });
  });
});
