import { describe, expect, it } from "vitest";
import { GatewayError } from "@gateway/contracts";
import { chatRequestFromMessages } from "./request.ts";

const base = { model: "claude-x", max_tokens: 256 };
const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("messages -> chat request", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "a system string, string and block content, sampling, stop sequences as an array, user id",
      {
        ...base,
        system: "Be brief.",
        messages: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: [{ type: "text", text: "Hello" }, { type: "text", text: " there" }] },
          { role: "user", content: [{ type: "text", text: "Again", cache_control: { type: "ephemeral" } }] },
        ],
        temperature: 0.2,
        top_p: 0.9,
        stop_sequences: ["END"],
        metadata: { user_id: "u-1" },
        stream: true,
      },
      {
        model: "claude-x",
        max_completion_tokens: 256,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Hello there" },
          { role: "user", content: [{ type: "text", text: "Again" }] },
        ],
        temperature: 0.2,
        top_p: 0.9,
        stop: ["END"],
        user: "u-1",
        stream: true,
      },
    ],
    [
      "system text blocks stay separate text parts",
      { ...base, system: [{ type: "text", text: "One." }, { type: "text", text: "Two.", cache_control: { type: "ephemeral" } }], messages: [{ role: "user", content: "Hi" }] },
      { model: "claude-x", max_completion_tokens: 256, messages: [{ role: "system", content: [{ type: "text", text: "One." }, { type: "text", text: "Two." }] }, { role: "user", content: "Hi" }] },
    ],
    [
      "images by base64 and by URL become image_url parts with data URLs",
      {
        ...base,
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
              { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
              { type: "text", text: "Compare" },
            ],
          },
        ],
      },
      {
        model: "claude-x",
        max_completion_tokens: 256,
        messages: [
          {
            role: "user",
            content: [
              { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
              { type: "image_url", image_url: { url: "https://example.com/a.png" } },
              { type: "text", text: "Compare" },
            ],
          },
        ],
      },
    ],
    [
      "tool_use blocks become tool_calls; several tool_results in one turn become several tool messages, in order, before the text",
      {
        ...base,
        messages: [
          { role: "user", content: "Weather in Paris and Tokyo?" },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Checking." },
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
              { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Tokyo" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "Sunny" },
              { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "Rain" }], is_error: false },
              { type: "text", text: "Summarise." },
            ],
          },
        ],
      },
      {
        model: "claude-x",
        max_completion_tokens: 256,
        messages: [
          { role: "user", content: "Weather in Paris and Tokyo?" },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "toolu_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
            ],
          },
          { role: "tool", tool_call_id: "toolu_1", content: "Sunny" },
          { role: "tool", tool_call_id: "toolu_2", content: [{ type: "text", text: "Rain" }] },
          { role: "user", content: [{ type: "text", text: "Summarise." }] },
        ],
      },
    ],
    [
      "tools and tool_choice any with disable_parallel_tool_use",
      {
        ...base,
        messages: [{ role: "user", content: "Hi" }],
        tools: [{ name: "get_weather", description: "Weather", input_schema: weather, cache_control: { type: "ephemeral" } }],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
      },
      {
        model: "claude-x",
        max_completion_tokens: 256,
        messages: [{ role: "user", content: "Hi" }],
        tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: weather } }],
        tool_choice: "required",
        parallel_tool_calls: false,
      },
    ],
    [
      "a named tool choice, thinking with a budget, a JSON-schema output",
      {
        ...base,
        messages: [{ role: "user", content: "Hi" }],
        tools: [{ name: "get_weather", input_schema: weather }],
        tool_choice: { type: "tool", name: "get_weather" },
        thinking: { type: "enabled", budget_tokens: 8000 },
        output_config: { format: { type: "json_schema", schema: weather } },
      },
      {
        model: "claude-x",
        max_completion_tokens: 256,
        messages: [{ role: "user", content: "Hi" }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: weather } }],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        reasoning_effort: "medium",
        response_format: { type: "json_schema", json_schema: { name: "output", schema: weather, strict: true } },
      },
    ],
    [
      "output_config.effort maps one to one",
      { ...base, messages: [{ role: "user", content: "Hi" }], thinking: { type: "adaptive" }, output_config: { effort: "high" } },
      { model: "claude-x", max_completion_tokens: 256, messages: [{ role: "user", content: "Hi" }], reasoning_effort: "high" },
    ],
  ])("%s", (_name, request, expected) => {
    expect(chatRequestFromMessages(request)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["top_k", { top_k: 5 }, "top_k"],
    ["an unknown field", { some_future_field: true }, "some_future_field"],
    ["mcp_servers", { mcp_servers: [{ type: "url", url: "https://mcp.example.com", name: "x" }] }, "mcp_servers"],
    ["metadata beyond user_id", { metadata: { user_id: "u", team: "x" } }, "metadata.team"],
    ["a server tool", { tools: [{ type: "web_search_20250305", name: "web_search" }] }, "tools[0].type"],
    ["a tool field with no equivalent", { tools: [{ name: "t", input_schema: weather, input_examples: [{}] }] }, "tools[0].input_examples"],
    ["thinking blocks in the history", { messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }] }] }, "messages[0].content[0]"],
    ["redacted thinking in the history", { messages: [{ role: "assistant", content: [{ type: "redacted_thinking", data: "d" }] }] }, "messages[0].content[0]"],
    ["a document block", { messages: [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } }] }] }, "messages[0].content[0]"],
    ["a search_result block", { messages: [{ role: "user", content: [{ type: "search_result", source: "s", title: "t", content: [] }] }] }, "messages[0].content[0]"],
    ["a file image source", { messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "file_1" } }] }] }, "messages[0].content[0].source"],
    ["an image in a tool result", { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "image", source: { type: "url", url: "https://x" } }] }] }] }, "messages[0].content[0].content[0]"],
    ["between_tools thinking", { thinking: { type: "between_tools" } }, "thinking.type"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    const attempt = () => chatRequestFromMessages({ ...base, messages: [{ role: "user", content: "Hi" }], ...extra });
    expect(attempt).toThrow(GatewayError);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: "unsupported_feature", status: 400, param });
    }
  });
});
