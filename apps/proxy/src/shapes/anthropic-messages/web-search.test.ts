import { describe, expect, it } from "vitest";
import { ChatCompletionStream } from "openai/lib/ChatCompletionStream";
import { fixtureEvents, fixtureJson, payloads, runStream, sdkReadable } from "../__fixtures__/fixtures.ts";
import { requestThrough, responseThrough, streamThrough } from "../__fixtures__/pairs.ts";
import { outputBound } from "../../core/output-bound.ts";
import { DroppedParams } from "../../core/drops.ts";

const messagesRequestFromChat = requestThrough("chat", "messages");
const chatCompletionFromMessage = responseThrough("chat", "messages");
const chatStreamFromMessages = (showUsage: boolean) => streamThrough("chat", "messages")({ stream_options: { include_usage: showUsage } });

/**
 * Chat Completions `web_search_options` on an Anthropic-shape model (contract section 15): the
 * search runs as Anthropic's web_search_20250305 server tool; its citations come back as the
 * message's `url_citation` annotations (the searches are billed from the upstream's own usage,
 * `server_tool_use.web_search_requests`). Upstream payloads: `__fixtures__/anthropic-messages/web-search.*`.
 */
const translate = (request: Record<string, unknown>, dropped = new DroppedParams(false)) => messagesRequestFromChat(request, dropped, outputBound(request, "chat.completions", 4096, "lower"));

const hi = [{ role: "user", content: "When was Claude Shannon born?" }];
const WIKIPEDIA = "https://en.wikipedia.org/wiki/Claude_Shannon";
const BEFORE = "I'll search for when Claude Shannon was born.Based on the search results, ";
const CITED = "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan";
const annotation = { type: "url_citation", url_citation: { start_index: BEFORE.length, end_index: BEFORE.length + CITED.length, url: WIKIPEDIA, title: "Claude Shannon - Wikipedia" } };

describe("web_search_options -> Anthropic's server tool", () => {
  it("{}: web_search_20250305 named web_search, nothing listed", () => {
    const dropped = new DroppedParams(false);
    expect(translate({ model: "m", messages: hi, web_search_options: {} }, dropped).tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    expect(dropped.paths).toEqual([]);
  });

  it("the user's location carries over; the context size is dropped and listed (refused under strict_params); the client's tools come first", () => {
    const request = {
      model: "m",
      messages: hi,
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      tool_choice: "auto",
      web_search_options: { search_context_size: "high", user_location: { type: "approximate", approximate: { city: "Paris", country: "FR", region: "Île-de-France", timezone: "Europe/Paris" } } },
    };
    const dropped = new DroppedParams(false);
    const body = translate(request, dropped);
    expect(body.tools).toEqual([
      { name: "f", input_schema: { type: "object" } },
      { type: "web_search_20250305", name: "web_search", user_location: { type: "approximate", city: "Paris", region: "Île-de-France", country: "FR", timezone: "Europe/Paris" } },
    ]);
    expect(body.tool_choice).toEqual({ type: "auto" });
    expect(dropped.paths).toEqual(["web_search_options.search_context_size"]);
    expect(() => translate(request, new DroppedParams(true))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "web_search_options.search_context_size" }));
  });

  it("a location naming nothing is left out; options that are not an object are a 400 naming them", () => {
    expect(translate({ model: "m", messages: hi, web_search_options: { user_location: { type: "approximate", approximate: {} } } }).tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    expect(() => translate({ model: "m", messages: hi, web_search_options: "yes" })).toThrow(expect.objectContaining({ code: "invalid_body", param: "web_search_options" }));
  });

  it("a function tool already named web_search: a 400 naming web_search_options (Anthropic refuses two tools of one name)", () => {
    const tools = [{ type: "function", function: { name: "web_search", parameters: { type: "object" } } }];
    expect(() => translate({ model: "m", messages: hi, tools, web_search_options: {} })).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "web_search_options" }));
    expect(translate({ model: "m", messages: hi, tools }).tools).toEqual([{ name: "web_search", input_schema: { type: "object" } }]);
  });

  it("a tool choice still needs function tools (web search is none in Chat Completions)", () => {
    expect(() => translate({ model: "m", messages: hi, web_search_options: {}, tool_choice: "required" })).toThrow(expect.objectContaining({ param: "tool_choice" }));
  });
});

describe("an answer that searched -> the chat answer", () => {
  it("JSON: the text joined, its citations as url_citation annotations over the cited text; no trace of the search blocks", () => {
    const completion = chatCompletionFromMessage(fixtureJson("anthropic-messages/web-search.json"));
    const message = (completion.choices as { message: Record<string, unknown> }[])[0]!.message;
    expect(message).toEqual({ role: "assistant", content: `${BEFORE}${CITED}.`, refusal: null, annotations: [annotation] });
    const { start_index, end_index } = annotation.url_citation;
    expect((message.content as string).slice(start_index, end_index)).toBe(CITED);
    expect(completion.usage).toMatchObject({ prompt_tokens: 6039, completion_tokens: 931 });
  });

  it("stream: one chunk of annotations before the finish chunk; the openai SDK assembles the same message", async () => {
    const { text } = runStream(chatStreamFromMessages(false), fixtureEvents("anthropic-messages/web-search.chunks.txt"));
    const chunks = payloads(text);
    const deltas = chunks.map((chunk) => (chunk.choices as { delta: Record<string, unknown> }[])[0]!.delta);
    const withAnnotations = deltas.flatMap((delta, index) => ("annotations" in delta ? [index] : []));
    expect(withAnnotations).toEqual([deltas.length - 2]);
    expect(deltas.at(-2)).toEqual({ annotations: [annotation] });
    expect((chunks.at(-1)!.choices as { finish_reason: string }[])[0]!.finish_reason).toBe("stop");
    const final = await ChatCompletionStream.fromReadableStream(sdkReadable(text)).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(`${BEFORE}${CITED}.`);
    expect(final.choices[0]!.message.annotations).toEqual([annotation]);
  });

  it("an answer without citations carries annotations: [] and streams no annotations chunk", () => {
    const message = (chatCompletionFromMessage(fixtureJson("anthropic-messages/tool-use.json")).choices as { message: Record<string, unknown> }[])[0]!.message;
    expect(message.annotations).toEqual([]);
    const { text } = runStream(chatStreamFromMessages(false), fixtureEvents("anthropic-messages/text-cached.chunks.txt"));
    expect(payloads(text).some((chunk) => "annotations" in (chunk.choices as { delta: object }[])[0]!.delta)).toBe(false);
  });
});
