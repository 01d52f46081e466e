import { describe, expect, it } from "vitest";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import type OpenAI from "openai";
import { fixtureEvents, fixtureJson, payloads, runStream, sdkReadable, sseEvents } from "../__fixtures__/fixtures.ts";
import { requestThrough, responseThrough, streamThrough } from "../__fixtures__/pairs.ts";
import { outputBound } from "../../core/output-bound.ts";
import { DroppedParams } from "../../core/drops.ts";
import { translationBetween } from "../index.ts";

const responsesToMessages = translationBetween("responses", "messages");
const messagesRequestFromResponses = requestThrough("responses", "messages");
const responseFromMessage = responseThrough("responses", "messages");
const responsesStreamFromMessages = streamThrough("responses", "messages");

/**
 * Responses web search on an Anthropic-shape model (contract section 15): the tool becomes
 * Anthropic's web_search_20250305 server tool; the upstream's server_tool_use and
 * web_search_tool_result blocks come back as web_search_call items and its citations as
 * url_citation annotations. Upstream payloads: `__fixtures__/anthropic-messages/web-search.*`,
 * in the shape of Anthropic's documented web search answers.
 */
const translate = (request: Record<string, unknown>, dropped = new DroppedParams(false)) =>
  messagesRequestFromResponses(request, dropped, outputBound(request, "responses", 4096, "lower"));

const WIKIPEDIA = "https://en.wikipedia.org/wiki/Claude_Shannon";
const CITED = "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan";

describe("web search tools -> Anthropic's server tool", () => {
  it.each(["web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11"])("%s: web_search_20250305 named web_search", (type) => {
    const dropped = new DroppedParams(false);
    const body = translate({ model: "m", input: "Hi", tools: [{ type }] }, dropped);
    expect(body.tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    expect(dropped.paths).toEqual([]);
  });

  it("Codex's tool (external_web_access: false): mapped, the cached-only mode dropped and listed; refused under strict_params", () => {
    const request = { model: "m", input: "Hi", tools: [{ type: "function", name: "f", parameters: { type: "object" } }, { type: "web_search", external_web_access: false }] };
    const dropped = new DroppedParams(false);
    expect(translate(request, dropped).tools).toEqual([{ name: "f", input_schema: { type: "object" } }, { type: "web_search_20250305", name: "web_search" }]);
    expect(dropped.paths).toEqual(["tools[1].external_web_access"]);
    expect(() => translate(request, new DroppedParams(true))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "tools[1].external_web_access" }));
  });

  it("allowed domains, the user's location and max_tool_calls carry over; the context size is dropped; the sources include is met", () => {
    const dropped = new DroppedParams(false);
    const body = translate(
      {
        model: "m",
        input: "Hi",
        max_tool_calls: 3,
        include: ["web_search_call.action.sources"],
        tools: [{ type: "web_search", search_context_size: "high", filters: { allowed_domains: ["wikipedia.org"] }, user_location: { type: "approximate", city: "Paris", country: "FR", region: null } }],
      },
      dropped,
    );
    expect(body.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 3, allowed_domains: ["wikipedia.org"], user_location: { type: "approximate", city: "Paris", country: "FR" } }]);
    expect(dropped.paths).toEqual(["tools[0].search_context_size"]);
  });

  it("a function tool already named web_search next to a web search tool: a 400 naming the web search tool (Anthropic refuses two tools of one name)", () => {
    const tools = [{ type: "function", name: "web_search", parameters: { type: "object" } }, { type: "web_search" }];
    expect(() => translate({ model: "m", input: "Hi", tools })).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "tools[1]" }));
    expect(translate({ model: "m", input: "Hi", tools: tools.slice(0, 1) }).tools).toEqual([{ name: "web_search", input_schema: { type: "object" } }]);
  });

  it("max_tool_calls: 0 allows no search: the tool is not offered, nothing listed", () => {
    const dropped = new DroppedParams(false);
    expect(translate({ model: "m", input: "Hi", max_tool_calls: 0, tools: [{ type: "web_search" }] }, dropped)).not.toHaveProperty("tools");
    expect(dropped.paths).toEqual([]);
  });

  it("an earlier web_search_call input item is dropped, listed; the answer after it stays", () => {
    const dropped = new DroppedParams(false);
    const body = translate(
      {
        model: "m",
        tools: [{ type: "web_search" }],
        input: [
          { role: "user", content: "When was Shannon born?" },
          { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "shannon" } },
          { role: "assistant", content: [{ type: "output_text", text: "April 30, 1916." }] },
          { role: "user", content: "Thanks" },
        ],
      },
      dropped,
    );
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "When was Shannon born?" }] },
      { role: "assistant", content: [{ type: "text", text: "April 30, 1916." }] },
      { role: "user", content: [{ type: "text", text: "Thanks" }] },
    ]);
    expect(dropped.paths).toEqual(["input[1]"]);
  });

  it("other built-in tools stay refused", () => {
    expect(() => translate({ model: "m", input: "Hi", tools: [{ type: "code_interpreter", container: { type: "auto" } }] })).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "tools[0]" }));
  });
});

describe("Anthropic web search answer -> Responses", () => {
  const request = { model: "m", input: "When was Claude Shannon born?", tools: [{ type: "web_search" }] };

  it("JSON: text, a completed web_search_call with the query, then the answer with a url_citation over the cited block", () => {
    const response = responseFromMessage(fixtureJson("anthropic-messages/web-search.json"), request);
    const output = response.output as Record<string, unknown>[];
    expect(output.map((item) => item.type)).toEqual(["message", "web_search_call", "message"]);
    expect(output[1]).toEqual({
      id: "ws_srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: "claude shannon birth date", queries: ["claude shannon birth date"] },
    });
    const part = (output[2]!.content as Record<string, unknown>[])[0]!;
    const text = `Based on the search results, ${CITED}.`;
    expect(part).toMatchObject({ type: "output_text", text });
    const start = text.indexOf(CITED);
    expect(part.annotations).toEqual([{ type: "url_citation", start_index: start, end_index: start + CITED.length, url: WIKIPEDIA, title: "Claude Shannon - Wikipedia" }]);
  });

  it("JSON with include web_search_call.action.sources: the result URLs; an error result: status failed", () => {
    const withSources = responseFromMessage(fixtureJson("anthropic-messages/web-search.json"), { ...request, include: ["web_search_call.action.sources"] });
    expect((withSources.output as Record<string, unknown>[])[1]).toMatchObject({
      action: { sources: [{ type: "url", url: WIKIPEDIA }, { type: "url", url: "https://www.britannica.com/biography/Claude-Shannon" }] },
    });
    const failed = responseFromMessage(
      {
        ...fixtureJson("anthropic-messages/web-search.json"),
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } },
          { type: "text", text: "I could not search." },
        ],
      },
      request,
    );
    expect((failed.output as Record<string, unknown>[])[0]).toMatchObject({ type: "web_search_call", status: "failed", action: { type: "search", query: "q" } });
  });

  it("stream: web_search_call added, in_progress, searching, completed, done, as OpenAI emits them; the annotation once its block ends; the SDK assembles the same output", async () => {
    const { text } = runStream(responsesStreamFromMessages(request), fixtureEvents("anthropic-messages/web-search.chunks.txt"));
    const events = payloads(text);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const search = events.filter((event) => event.output_index === 1).map((event) => event.type);
    expect(search).toEqual([
      "response.output_item.added",
      "response.web_search_call.in_progress",
      "response.web_search_call.searching",
      "response.web_search_call.completed",
      "response.output_item.done",
    ]);
    expect(events.find((event) => event.type === "response.output_item.added" && event.output_index === 1)).toMatchObject({ item: { type: "web_search_call", status: "in_progress", action: { type: "search" } } });
    const annotation = events.find((event) => event.type === "response.output_text.annotation.added");
    const cutAt = events.indexOf(annotation!);
    // Every delta of the cited text came before its annotation.
    expect(events.slice(0, cutAt).filter((event) => event.type === "response.output_text.delta" && event.output_index === 2).map((event) => event.delta).join("")).toBe(`Based on the search results, ${CITED}`);

    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(["message", "web_search_call", "message"]);
    const search1 = final.output[1] as OpenAI.Responses.ResponseFunctionWebSearch;
    expect(search1).toEqual({ id: "ws_srvtoolu_014hJH82Qum7Td6UV8gDXThB", type: "web_search_call", status: "completed", action: { type: "search", query: "claude shannon birth date", queries: ["claude shannon birth date"] } });
    const message = final.output[2] as OpenAI.Responses.ResponseOutputMessage;
    const part = message.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.text).toBe(`Based on the search results, ${CITED}.`);
    const start = part.text.indexOf(CITED);
    expect(part.annotations).toEqual([{ type: "url_citation", start_index: start, end_index: start + CITED.length, url: WIKIPEDIA, title: "Claude Shannon - Wikipedia" }]);
  });

  it("stream with include sources: the result URLs on the done item", () => {
    const { text } = runStream(responsesStreamFromMessages({ ...request, include: ["web_search_call.action.sources"] }), fixtureEvents("anthropic-messages/web-search.chunks.txt"));
    const done = payloads(text).find((event) => event.type === "response.output_item.done" && event.output_index === 1);
    expect(done).toMatchObject({ item: { status: "completed", action: { query: "claude shannon birth date", sources: [{ type: "url", url: WIKIPEDIA }] } } });
  });

  it("stream: an error result ends the item failed, without a completed event", () => {
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"query\\":\\"q\\"}"}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join("");
    const events = payloads(runStream(responsesStreamFromMessages(request), sseEvents(sse)).text);
    expect(events.map((event) => event.type)).not.toContain("response.web_search_call.completed");
    expect(events.find((event) => event.type === "response.output_item.done")).toMatchObject({ item: { type: "web_search_call", status: "failed", action: { query: "q" } } });
  });

  it("billing: the upstream's own usage reader counts the searches (priced at the model's web_search price)", () => {
    expect(responsesToMessages.upstreamWire.usageFromResponse(fixtureJson("anthropic-messages/web-search.json"))).toMatchObject({ webSearchRequests: 1 });
    const tracker = responsesToMessages.upstreamWire.createStreamTracker({ body: { model: "m", stream: true }, model: "m", stream: true });
    for (const event of fixtureEvents("anthropic-messages/web-search.chunks.txt")) tracker.observe(event);
    expect(tracker.usage()).toMatchObject({ webSearchRequests: 1, outputTokens: 510 });
  });
});
