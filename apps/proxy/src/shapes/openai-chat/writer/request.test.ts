import { describe, expect, it } from "vitest";
import { GatewayError } from "@gateway/contracts";
import { DroppedParams } from "../../../core/drops.ts";
import { outputBound } from "../../../core/output-bound.ts";
import { requestThrough } from "../../__fixtures__/pairs.ts";

const chatRequestFromMessages = requestThrough("messages", "chat");

/** The route's output bound for a model whose maximum output is 4096 tokens. */
const bound = (request: Record<string, unknown>) => outputBound(request, "messages", 4096, "lower");

const translate = (request: Record<string, unknown>, strict = false) => chatRequestFromMessages(request, new DroppedParams(strict), bound(request));

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
    expect(translate(request)).toEqual(expected);
  });

  it("Claude Code's request: betas-era fields that only tune the answer are dropped, each listed by its path", () => {
    const request = {
      ...base,
      system: [
        { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Be brief." },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Fix the bug", cache_control: { type: "ephemeral", ttl: "1h" } }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Look at the file.", signature: "EqQBCkYIBxgCKkB" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "tool_use", id: "toolu_1", name: "Read", input: { path: "a.ts" }, cache_control: { type: "ephemeral" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "code", cache_control: { type: "ephemeral" } }] }] },
        { role: "assistant", content: [{ type: "thinking", thinking: "Done.", signature: "sig" }] },
        { role: "user", content: "Thanks" },
      ],
      tools: [{ name: "Read", description: "Read a file", input_schema: weather, cache_control: { type: "ephemeral" }, eager_input_streaming: true, input_examples: [{ city: "x" }] }],
      thinking: { type: "adaptive" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      metadata: { user_id: "user_abc", session: "s1" },
      top_k: 40,
      cache_control: { type: "ephemeral" },
      output_config: { effort: "medium", task_budget: 1000 },
    };
    const dropped = new DroppedParams(false);
    expect(chatRequestFromMessages(request, dropped, bound(request))).toEqual({
      model: "claude-x",
      max_completion_tokens: 256,
      messages: [
        { role: "system", content: [{ type: "text", text: "You are Claude Code." }, { type: "text", text: "Be brief." }] },
        { role: "user", content: [{ type: "text", text: "Fix the bug" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Read", arguments: '{"path":"a.ts"}' } }] },
        { role: "tool", tool_call_id: "toolu_1", content: [{ type: "text", text: "code" }] },
        { role: "user", content: "Thanks" },
      ],
      user: "user_abc",
      tools: [{ type: "function", function: { name: "Read", description: "Read a file", parameters: weather } }],
      reasoning_effort: "medium",
    });
    expect(dropped.paths).toEqual([
      "top_k",
      "cache_control",
      "context_management",
      "system[0].cache_control",
      "messages[0].content[0].cache_control",
      "messages[1].content[0]",
      "messages[1].content[1]",
      "messages[1].content[2].cache_control",
      "messages[2].content[0].content[0].cache_control",
      "messages[3].content[0]",
      "metadata.session",
      "tools[0].cache_control",
      "tools[0].eager_input_streaming",
      "tools[0].input_examples",
      "output_config.task_budget",
    ]);
    expect(() => translate(request, true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "top_k" }));
    expect(() => translate({ ...base, messages: request.messages.slice(0, 2) }, true)).toThrow(expect.objectContaining({ param: "messages[0].content[0].cache_control" }));
  });

  it("metadata.user_id becomes user up to OpenAI's 64 characters; a longer one (Claude Code's) is dropped and listed", () => {
    const short = new DroppedParams(false);
    expect(chatRequestFromMessages({ ...base, messages: [{ role: "user", content: "Hi" }], metadata: { user_id: "u".repeat(64) } }, short, bound({ ...base, messages: [{ role: "user", content: "Hi" }], metadata: { user_id: "u".repeat(64) } }))).toMatchObject({ user: "u".repeat(64) });
    expect(short.paths).toEqual([]);
    const long = new DroppedParams(false);
    const claudeCode = `user_${"a".repeat(64)}_account_${"0".repeat(36)}_session_${"1".repeat(36)}`;
    expect(chatRequestFromMessages({ ...base, messages: [{ role: "user", content: "Hi" }], metadata: { user_id: claudeCode } }, long, bound({ ...base, messages: [{ role: "user", content: "Hi" }], metadata: { user_id: claudeCode } }))).not.toHaveProperty("user");
    expect(long.paths).toEqual(["metadata.user_id"]);
  });

  it("an unknown thinking type is dropped, adaptive thinking leaves the model's default, budgets pick the nearest effort", () => {
    const dropped = new DroppedParams(false);
    expect(chatRequestFromMessages({ ...base, messages: [{ role: "user", content: "Hi" }], thinking: { type: "between_tools" } }, dropped, bound({ ...base, messages: [{ role: "user", content: "Hi" }], thinking: { type: "between_tools" } }))).not.toHaveProperty("reasoning_effort");
    expect(dropped.paths).toEqual(["thinking"]);
    expect(translate({ ...base, messages: [{ role: "user", content: "Hi" }], thinking: { type: "adaptive", display: "summarized" } })).not.toHaveProperty("reasoning_effort");
    expect(translate({ ...base, messages: [{ role: "user", content: "Hi" }], thinking: { type: "enabled", budget_tokens: 1024 } })).toMatchObject({ reasoning_effort: "low" });
    expect(translate({ ...base, messages: [{ role: "user", content: "Hi" }], thinking: { type: "enabled", budget_tokens: 31999 } })).toMatchObject({ reasoning_effort: "high" });
  });

  it("a mid-conversation system message stays a system message in place; between tool calls and their results it follows the results", () => {
    const body = translate({
      ...base,
      system: "Be brief.",
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "w", input: {} }, { type: "tool_use", id: "t2", name: "w", input: {} }] },
        { role: "system", content: "The sandbox is read-only." },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Sunny" }, { type: "tool_result", tool_use_id: "t2", content: "Rain" }, { type: "text", text: "So?" }] },
        { role: "assistant", content: "Mixed." },
        { role: "system", content: [{ type: "text", text: "Answer in French." }] },
        { role: "user", content: "Thanks" },
      ],
      tools: [{ name: "w", input_schema: weather }],
    });
    expect((body.messages as { role: string }[]).map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "tool", "system", "user", "assistant", "system", "user"]);
    expect((body.messages as unknown[])[5]).toEqual({ role: "system", content: "The sandbox is read-only." });
    expect((body.messages as unknown[])[8]).toEqual({ role: "system", content: [{ type: "text", text: "Answer in French." }] });
  });

  it("Anthropic's web search server tool is dropped and listed (Chat Completions has none); earlier searches too, the answer that used them stays; strict_params refuses", () => {
    const request = {
      ...base,
      messages: [
        { role: "user", content: "When was Shannon born?" },
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "shannon" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://x", title: "X", encrypted_content: "e" }] },
            { type: "text", text: "In 1916." },
          ],
        },
        { role: "user", content: "And where?" },
      ],
      tools: [{ name: "t", input_schema: weather }, { type: "web_search_20250305", name: "web_search", max_uses: 5 }],
      tool_choice: { type: "auto" },
    };
    const dropped = new DroppedParams(false);
    const body = chatRequestFromMessages(request, dropped, bound(request));
    expect(body.tools).toEqual([{ type: "function", function: { name: "t", parameters: weather } }]);
    expect(body.tool_choice).toBe("auto");
    expect(body.messages).toEqual([
      { role: "user", content: "When was Shannon born?" },
      { role: "assistant", content: "In 1916." },
      { role: "user", content: "And where?" },
    ]);
    expect(dropped.paths).toEqual(["messages[1].content[0]", "messages[1].content[1]", "tools[1]"]);
    expect(() => translate(request, true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "messages[1].content[0]" }));
    // Claude Code's WebSearch request: its one tool is the search; the model answers without it.
    const only = new DroppedParams(false);
    const alone = { ...base, messages: [{ role: "user", content: "Search the web for X" }], tools: [{ type: "web_search_20260209", name: "web_search", max_uses: 8 }] };
    expect(chatRequestFromMessages(alone, only, bound(alone))).not.toHaveProperty("tools");
    expect(only.paths).toEqual(["tools[0]"]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["an unknown field", { some_future_field: true }, "some_future_field"],
    ["mcp_servers", { mcp_servers: [{ type: "url", url: "https://mcp.example.com", name: "x" }] }, "mcp_servers"],
    ["a server tool other than web search", { tools: [{ type: "code_execution_20250825", name: "code_execution" }] }, "tools[0].type"],
    ["a tool choice forcing the dropped web search", { tools: [{ name: "t", input_schema: weather }, { type: "web_search_20250305", name: "web_search" }], tool_choice: { type: "tool", name: "web_search" } }, "tool_choice"],
    ["a tool call forced when web search is the only tool", { tools: [{ type: "web_search_20250305", name: "web_search" }], tool_choice: { type: "any" } }, "tool_choice"],
    ["a tool field with no equivalent", { tools: [{ name: "t", input_schema: weather, some_future_tool_field: {} }] }, "tools[0].some_future_tool_field"],
    ["a container", { container: "container_1" }, "container"],
    ["a document block", { messages: [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } }] }] }, "messages[0].content[0]"],
    ["a search_result block", { messages: [{ role: "user", content: [{ type: "search_result", source: "s", title: "t", content: [] }] }] }, "messages[0].content[0]"],
    ["a file image source", { messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "file_1" } }] }] }, "messages[0].content[0].source"],
    ["an image in a tool result", { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "image", source: { type: "url", url: "https://x" } }] }] }] }, "messages[0].content[0].content[0]"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    const attempt = () => translate({ ...base, messages: [{ role: "user", content: "Hi" }], ...extra });
    expect(attempt).toThrow(GatewayError);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: "unsupported_feature", status: 400, param });
    }
  });
});
