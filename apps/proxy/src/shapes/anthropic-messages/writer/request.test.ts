import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DroppedParams } from "../../../core/drops.ts";
import { outputBound } from "../../../core/output-bound.ts";
import { foldSystemMessages } from "../../../core/system-reminder.ts";
import { requestThrough } from "../../__fixtures__/pairs.ts";

const messagesRequestFromChat = requestThrough("chat", "messages");

/** The route's output bound for a model whose maximum output is 4096 tokens. */
const bound = (request: Record<string, unknown>) => outputBound(request, "chat.completions", 4096, "lower");

const translate = (request: Record<string, unknown>, strict = false) => messagesRequestFromChat(request, new DroppedParams(strict), bound(request));

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const hi = [{ role: "user", content: "Hi" }];

describe("chat -> messages request", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "system and developer messages become the system prompt; max_tokens defaults to 4096; stop string -> array",
      {
        model: "gpt-x",
        messages: [{ role: "system", content: "Be brief." }, { role: "developer", content: [{ type: "text", text: "English only." }] }, ...hi],
        stop: "END",
        temperature: 0.3,
        user: "u-1",
        stream: true,
        stream_options: { include_usage: true },
      },
      {
        model: "gpt-x",
        max_tokens: 4096,
        system: [{ type: "text", text: "Be brief." }, { type: "text", text: "English only." }],
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
        stop_sequences: ["END"],
        temperature: 0.3,
        metadata: { user_id: "u-1" },
        stream: true,
      },
    ],
    [
      "max_completion_tokens wins; one system string stays a string; images by data URL and https URL",
      {
        model: "gpt-x",
        max_completion_tokens: 50,
        max_tokens: 10,
        messages: [
          { role: "system", content: "Be brief." },
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" } },
              { type: "image_url", image_url: { url: "https://example.com/a.webp" } },
            ],
          },
        ],
        stop: ["a", "b"],
      },
      {
        model: "gpt-x",
        max_tokens: 50,
        system: "Be brief.",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "image", source: { type: "url", url: "https://example.com/a.webp" } },
            ],
          },
        ],
        stop_sequences: ["a", "b"],
      },
    ],
    [
      "tool calls and consecutive tool messages become one tool_use turn and one tool_result turn, then the user text joins it",
      {
        model: "gpt-x",
        messages: [
          ...hi,
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "Sunny" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "Rain" }] },
          { role: "user", content: "Thanks" },
        ],
        tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: weather, strict: true } }],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        parallel_tool_calls: false,
      },
      {
        model: "gpt-x",
        max_tokens: 4096,
        messages: [
          { role: "user", content: [{ type: "text", text: "Hi" }] },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
              { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "Tokyo" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "call_1", content: "Sunny" },
              { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "Rain" }] },
              { type: "text", text: "Thanks" },
            ],
          },
        ],
        tools: [{ name: "get_weather", description: "Weather", input_schema: weather, strict: true }],
        tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
      },
    ],
    [
      "thinking blocks this gateway returned go back first, signed; reasoning_effort -> adaptive thinking with that effort",
      {
        model: "gpt-x",
        reasoning_effort: "high",
        messages: [
          ...hi,
          {
            role: "assistant",
            content: "Let me check.",
            reasoning_content: "I should call the tool.",
            thinking_blocks: [{ type: "thinking", thinking: "I should call the tool.", signature: "sig" }],
            tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "toolu_1", content: "Sunny" },
        ],
        tools: [{ type: "function", function: { name: "get_weather", parameters: weather } }],
        tool_choice: "auto",
        response_format: { type: "json_schema", json_schema: { name: "w", schema: weather, strict: true } },
      },
      {
        model: "gpt-x",
        max_tokens: 4096,
        messages: [
          { role: "user", content: [{ type: "text", text: "Hi" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "I should call the tool.", signature: "sig" },
              { type: "text", text: "Let me check." },
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Sunny" }] },
        ],
        tools: [{ name: "get_weather", input_schema: weather }],
        tool_choice: { type: "auto" },
        thinking: { type: "adaptive" },
        output_config: { effort: "high", format: { type: "json_schema", schema: weather } },
      },
    ],
    [
      "values that change nothing are accepted: n 1, logprobs false, zero penalties, reasoning none",
      { model: "gpt-x", messages: hi, n: 1, logprobs: false, frequency_penalty: 0, presence_penalty: 0, store: false, reasoning_effort: "none", logit_bias: {}, metadata: {} },
      { model: "gpt-x", max_tokens: 4096, messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], thinking: { type: "disabled" } },
    ],
  ])("%s", (_name, request, expected) => {
    const dropped = new DroppedParams(false);
    expect(messagesRequestFromChat(request, dropped, bound(request))).toEqual(expected);
    expect(dropped.paths).toEqual([]);
  });

  it("fields that only tune the answer are dropped, each listed by its path; strict_params refuses the first instead", () => {
    const request = {
      model: "gpt-x",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", name: "bob", content: [{ type: "text", text: "Hi" }, { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } }] },
      ],
      frequency_penalty: 0.5,
      presence_penalty: -1,
      logit_bias: { "50256": -100 },
      seed: 7,
      prediction: { type: "content", content: "x" },
      verbosity: "low",
      store: true,
      metadata: { team: "a" },
      service_tier: "priority",
      prompt_cache_key: "k",
      prompt_cache_retention: "24h",
      prompt_cache_options: { mode: "explicit", ttl: "30m" },
      temperature: 1.5,
      parallel_tool_calls: true,
    };
    const dropped = new DroppedParams(false);
    expect(messagesRequestFromChat(request, dropped, bound(request))).toEqual({
      model: "gpt-x",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }, { type: "image", source: { type: "url", url: "https://example.com/a.png" } }] }],
    });
    expect(dropped.paths).toEqual([
      "frequency_penalty",
      "presence_penalty",
      "logit_bias",
      "seed",
      "prediction",
      "verbosity",
      "store",
      "metadata",
      "service_tier",
      "prompt_cache_key",
      "prompt_cache_retention",
      "prompt_cache_options",
      "messages[1].name",
      "messages[1].content[1].image_url.detail",
      "temperature",
      "parallel_tool_calls",
    ]);
    expect(() => translate(request, true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "frequency_penalty" }));
    expect(() => translate({ model: "gpt-x", messages: hi, temperature: 2 }, true)).toThrow(expect.objectContaining({ param: "temperature" }));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["n > 1", { n: 3 }, "n"],
    ["logprobs", { logprobs: true }, "logprobs"],
    ["top_logprobs", { top_logprobs: 2 }, "top_logprobs"],
    ["audio", { audio: { voice: "alloy", format: "wav" } }, "audio"],
    ["audio output modality", { modalities: ["text", "audio"] }, "modalities"],
    ["moderation (its results come back with the answer)", { moderation: { model: "omni-moderation-latest", policy: { output: { mode: "block" } } } }, "moderation"],
    ["legacy functions", { functions: [{ name: "f" }] }, "functions"],
    ["json_object", { response_format: { type: "json_object" } }, "response_format"],
    ["a custom tool", { tools: [{ type: "custom", custom: { name: "c" } }] }, "tools[0].type"],
    ["an audio part", { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "x", format: "wav" } }] }] }, "messages[0].content[0]"],
    ["a file part", { messages: [{ role: "user", content: [{ type: "file", file: { file_id: "f" } }] }] }, "messages[0].content[0]"],
    ["an image type Anthropic does not take", { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }] }, "messages[0].content[0].image_url.url"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    expect(() => translate({ model: "gpt-x", messages: hi, ...extra })).toThrow(expect.objectContaining({ code: "unsupported_feature", param }));
  });

  it("every field of the installed openai SDK's ChatCompletionCreateParams is read: mapped, dropped or refused for a reason, never as unknown", () => {
    // The package's own declaration of the request (its entry point sits at the package root).
    const root = dirname(fileURLToPath(import.meta.resolve("openai")));
    const types = readFileSync(join(root, "resources/chat/completions/completions.d.ts"), "utf8");
    const base = types.slice(types.indexOf("export interface ChatCompletionCreateParamsBase {"));
    const fields = [...base.slice(0, base.indexOf("\n}\n")).matchAll(/^ {4}([a-z_]+)\??:/gm)].map((match) => match[1]!);
    expect(fields).toEqual(expect.arrayContaining(["messages", "model", "moderation", "prompt_cache_options", "web_search_options"]));
    for (const field of fields) {
      if (field === "messages" || field === "model") continue;
      for (const value of [{ x: 1 }, "x", 2, true]) {
        let error: unknown = null;
        try {
          translate({ model: "gpt-x", messages: hi, [field]: value });
        } catch (caught) {
          error = caught;
        }
        expect(String((error as Error | null)?.message), field).not.toMatch(/not supported when the model is served by/);
      }
    }
  });

  it("a system or developer message after the conversation started stays a system message in its place (folded by the request drops when the model lacks them)", () => {
    const body = translate({ model: "gpt-x", messages: [{ role: "system", content: "First." }, ...hi, { role: "assistant", content: "Hello" }, { role: "developer", content: "Be terse." }, { role: "user", content: "Again" }, { role: "user", content: "More" }] });
    expect(body).toMatchObject({ system: "First." });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello" }] },
      { role: "system", content: [{ type: "text", text: "Be terse." }] },
      // Turns after it still combine as before.
      { role: "user", content: [{ type: "text", text: "Again" }, { type: "text", text: "More" }] },
    ]);
    // The same conversation for a model without mid-conversation system messages: one reminder, in the next user turn.
    expect(foldSystemMessages(body.messages as unknown[])).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello" }] },
      { role: "user", content: [{ type: "text", text: "<system-reminder>\nBe terse.\n</system-reminder>" }, { type: "text", text: "Again" }, { type: "text", text: "More" }] },
    ]);
  });

  it("a system message between two user messages splits them; several in a row stay in order", () => {
    const body = translate({ model: "gpt-x", messages: [...hi, { role: "system", content: "A" }, { role: "developer", content: [{ type: "text", text: "B" }] }, { role: "user", content: "C" }] });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "system", content: [{ type: "text", text: "A" }] },
      { role: "system", content: [{ type: "text", text: "B" }] },
      { role: "user", content: [{ type: "text", text: "C" }] },
    ]);
  });

  it("tool-call arguments that are not a JSON object are a 400 naming them", () => {
    const messages = [...hi, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] }];
    expect(() => translate({ model: "gpt-x", messages })).toThrow(expect.objectContaining({ code: "invalid_body", param: "messages[1].tool_calls[0].function.arguments" }));
  });
});
