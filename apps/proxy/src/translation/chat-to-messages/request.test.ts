import { describe, expect, it } from "vitest";
import { messagesRequestFromChat } from "./request.ts";

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
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
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
      { model: "gpt-x", messages: hi, n: 1, logprobs: false, frequency_penalty: 0, presence_penalty: 0, store: false, reasoning_effort: "none", prompt_cache_key: "k" },
      { model: "gpt-x", max_tokens: 4096, messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], thinking: { type: "disabled" } },
    ],
  ])("%s", (_name, request, expected) => {
    expect(messagesRequestFromChat(request)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["n > 1", { n: 3 }, "n"],
    ["logprobs", { logprobs: true }, "logprobs"],
    ["top_logprobs", { top_logprobs: 2 }, "top_logprobs"],
    ["a frequency penalty", { frequency_penalty: 0.5 }, "frequency_penalty"],
    ["logit_bias", { logit_bias: { "50256": -100 } }, "logit_bias"],
    ["seed", { seed: 7 }, "seed"],
    ["audio", { audio: { voice: "alloy", format: "wav" } }, "audio"],
    ["audio output modality", { modalities: ["text", "audio"] }, "modalities"],
    ["prediction", { prediction: { type: "content", content: "x" } }, "prediction"],
    ["web_search_options", { web_search_options: {} }, "web_search_options"],
    ["legacy functions", { functions: [{ name: "f" }] }, "functions"],
    ["store: true", { store: true }, "store"],
    ["a priority tier", { service_tier: "priority" }, "service_tier"],
    ["a temperature above 1", { temperature: 1.2 }, "temperature"],
    ["json_object", { response_format: { type: "json_object" } }, "response_format"],
    ["a custom tool", { tools: [{ type: "custom", custom: { name: "c" } }] }, "tools[0].type"],
    ["a system message mid-conversation", { messages: [...hi, { role: "system", content: "late" }] }, "messages[1]"],
    ["a participant name", { messages: [{ role: "user", name: "bob", content: "Hi" }] }, "messages[0].name"],
    ["an audio part", { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "x", format: "wav" } }] }] }, "messages[0].content[0]"],
    ["a file part", { messages: [{ role: "user", content: [{ type: "file", file: { file_id: "f" } }] }] }, "messages[0].content[0]"],
    ["an image type Anthropic does not take", { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }] }, "messages[0].content[0].image_url.url"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    expect(() => messagesRequestFromChat({ model: "gpt-x", messages: hi, ...extra })).toThrow(expect.objectContaining({ code: "unsupported_feature", param }));
  });

  it("tool-call arguments that are not a JSON object are a 400 naming them", () => {
    const messages = [...hi, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] }];
    expect(() => messagesRequestFromChat({ model: "gpt-x", messages })).toThrow(expect.objectContaining({ code: "invalid_body", param: "messages[1].tool_calls[0].function.arguments" }));
  });
});
