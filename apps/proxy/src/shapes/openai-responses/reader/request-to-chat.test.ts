import { describe, expect, it } from "vitest";
import { fixtureJson } from "../../__fixtures__/fixtures.ts";
import { requestThrough } from "../../__fixtures__/pairs.ts";
import { CUSTOM_TOOL_SCHEMA } from "../../../core/custom-tools.ts";
import { DroppedParams } from "../../../core/drops.ts";
import { outputBound } from "../../../core/output-bound.ts";

const translateWith = requestThrough("responses", "chat");

/** The route's output bound for a model whose maximum output is 4096 tokens. */
const bound = (request: Record<string, unknown>) => outputBound(request, "responses", 4096, "lower");

const chatRequestFromResponses = (request: Record<string, unknown>, strict = false) => translateWith(request, new DroppedParams(strict), bound(request));

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("responses -> chat request", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "string input, instructions, max_output_tokens, same-name fields; metadata stays on the response",
      {
        model: "gpt-x",
        input: "Hello",
        instructions: "Be brief.",
        max_output_tokens: 100,
        temperature: 0.7,
        top_p: 1,
        user: "u-1",
        safety_identifier: "s-1",
        prompt_cache_key: "k",
        service_tier: "flex",
        metadata: { team: "a" },
        store: false,
        stream: true,
        include: ["reasoning.encrypted_content"],
      },
      {
        model: "gpt-x",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        max_completion_tokens: 100,
        temperature: 0.7,
        top_p: 1,
        user: "u-1",
        safety_identifier: "s-1",
        prompt_cache_key: "k",
        service_tier: "flex",
        stream: true,
      },
    ],
    [
      "message items with text and images; an assistant message and its function calls are one turn; outputs are tool messages",
      {
        model: "gpt-x",
        input: [
          { role: "developer", content: "English only." },
          { type: "message", role: "user", content: [{ type: "input_text", text: "Weather here?" }, { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" }] },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [] }] },
          { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Tokyo"}' },
          { type: "function_call_output", call_id: "call_1", output: "Sunny" },
          { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "Rain" }] },
        ],
        tools: [{ type: "function", name: "get_weather", description: "Weather", parameters: weather, strict: true }],
        tool_choice: { type: "function", name: "get_weather" },
        parallel_tool_calls: false,
      },
      {
        model: "gpt-x",
        messages: [
          { role: "developer", content: "English only." },
          { role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBO", detail: "auto" } }] },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "Sunny" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "Rain" }] },
        ],
        tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: weather, strict: true } }],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        parallel_tool_calls: false,
      },
    ],
    [
      "text.format and verbosity, reasoning effort",
      { model: "gpt-x", input: "Hi", text: { format: { type: "json_schema", name: "w", schema: weather, strict: true }, verbosity: "low" }, reasoning: { effort: "low" } },
      {
        model: "gpt-x",
        messages: [{ role: "user", content: "Hi" }],
        verbosity: "low",
        response_format: { type: "json_schema", json_schema: { name: "w", schema: weather, strict: true } },
        reasoning_effort: "low",
      },
    ],
  ])("%s", (_name, request, expected) => {
    // The output bound is always sent: max_output_tokens when set, else the model's maximum (4096 here).
    expect(chatRequestFromResponses(request)).toEqual({ max_completion_tokens: 4096, ...expected });
  });

  it("a system or developer item after the conversation started stays a system/developer message in its place; between calls and their outputs it follows the outputs", () => {
    const body = chatRequestFromResponses({
      model: "gpt-x",
      input: [
        { role: "user", content: "List files" },
        { type: "function_call", call_id: "call_1", name: "shell", arguments: "{}" },
        { role: "developer", content: "The sandbox is now read-only." },
        { type: "function_call", call_id: "call_2", name: "shell", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "a.txt" },
        { type: "function_call_output", call_id: "call_2", output: "b.txt" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Two files." }] },
        { role: "system", content: [{ type: "input_text", text: "Answer in French." }] },
        { role: "user", content: "Thanks" },
      ],
      tools: [{ type: "function", name: "shell", parameters: {} }],
    });
    const messages = body.messages as Record<string, unknown>[];
    // Chat Completions wants the tool messages right after the calls.
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "developer", "assistant", "system", "user"]);
    expect((messages[1]!.tool_calls as unknown[]).length).toBe(2);
    expect(messages[4]).toEqual({ role: "developer", content: "The sandbox is now read-only." });
    expect(messages[6]).toEqual({ role: "system", content: [{ type: "text", text: "Answer in French." }] });
  });

  it("Codex's request: custom tools become functions with one string argument, custom calls and outputs tool calls and tool messages", () => {
    const dropped = new DroppedParams(false);
    const body = translateWith(fixtureJson("codex/request.json"), dropped, bound(fixtureJson("codex/request.json")));
    expect(body).toEqual({
      model: "gpt-x",
      stream: true,
      max_completion_tokens: 4096,
      messages: [
        { role: "system", content: "You are Codex, a coding agent." },
        { role: "user", content: [{ type: "text", text: "<environment_context>cwd: /repo</environment_context>" }] },
        { role: "user", content: [{ type: "text", text: "Add a README." }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_shell_1", type: "function", function: { name: "shell", arguments: '{"command":["ls"]}' } }] },
        { role: "tool", tool_call_id: "call_shell_1", content: "src\n" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_patch_1", type: "function", function: { name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch\n*** Add File: README.md\n+hello\n*** End Patch\n" }) } }],
        },
        { role: "tool", tool_call_id: "call_patch_1", content: "Success. Updated the following files:\nA README.md\n" },
        { role: "user", content: [{ type: "text", text: "Thanks, now commit." }] },
      ],
      prompt_cache_key: "0199c4d2-codex-session",
      tools: [
        {
          type: "function",
          function: {
            name: "shell",
            description: "Runs a shell command and returns its output.",
            strict: false,
            parameters: { type: "object", properties: { command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } }, required: ["command"], additionalProperties: false },
          },
        },
        { type: "function", function: { name: "apply_patch", description: expect.stringContaining("lark grammar"), parameters: CUSTOM_TOOL_SCHEMA } },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
      verbosity: "medium",
      reasoning_effort: "medium",
    });
    expect(dropped.paths).toEqual(["include[0]", "input[2]", "tools[1].format", "reasoning.summary"]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["store: true", { store: true }, ["store"]],
    ["truncation auto", { truncation: "auto" }, ["truncation"]],
    ["reasoning summaries", { reasoning: { effort: "low", summary: "auto" } }, ["reasoning.summary"]],
    ["a reasoning item", { input: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "x" }, { role: "user", content: "Hi" }] }, ["input[0]"]],
    ["encrypted reasoning, which Chat Completions never returns", { include: ["reasoning.encrypted_content"] }, ["include[0]"]],
    ["a web search tool, which Chat Completions cannot run", { tools: [{ type: "web_search", external_web_access: false }] }, ["tools[0]"]],
    ["an earlier web search", { input: [{ role: "user", content: "Hi" }, { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "q" } }] }, ["input[1]"]],
    ["Codex's client_metadata", { client_metadata: { thread_id: "t", "x-codex-window-id": "w" } }, ["client_metadata"]],
    ["cache options and image compression", { prompt_cache_options: { ttl: "12h" }, image: { context_compression: "enabled" } }, ["prompt_cache_options", "image.context_compression"]],
  ])("drops %s, listing it", (_name, extra, paths) => {
    const dropped = new DroppedParams(false);
    translateWith({ model: "gpt-x", input: "Hi", ...extra }, dropped, bound({ model: "gpt-x", input: "Hi", ...extra }));
    expect(dropped.paths).toEqual(paths);
    expect(() => chatRequestFromResponses({ model: "gpt-x", input: "Hi", ...extra }, true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: paths[0] }));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a built-in tool", { tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }, "tools[0]"],
    ["a hosted tool choice", { tool_choice: { type: "file_search" } }, "tool_choice"],
    ["previous_response_id", { previous_response_id: "resp_1" }, "previous_response_id"],
    ["conversation", { conversation: "conv_1" }, "conversation"],
    ["background", { background: true }, "background"],
    ["logprobs by include", { include: ["message.output_text.logprobs"] }, "include[0]"],
    ["an item reference", { input: [{ type: "item_reference", id: "msg_1" }] }, "input[0]"],
    ["an input_file part", { input: [{ role: "user", content: [{ type: "input_file", file_id: "file_1" }] }] }, "input[0].content[0]"],
    ["an image by file_id", { input: [{ role: "user", content: [{ type: "input_image", file_id: "file_1", detail: "auto" }] }] }, "input[0].content[0]"],
    ["an unknown field", { prompt_template_vars: {} }, "prompt_template_vars"],
    ["moderation", { moderation: { model: "omni-moderation-latest" } }, "moderation"],
    ["a cache prewarm (it answers nothing)", { prompt_cache_options: { prewarm: true } }, "prompt_cache_options.prewarm"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    expect(() => chatRequestFromResponses({ model: "gpt-x", input: "Hi", ...extra })).toThrow(expect.objectContaining({ code: "unsupported_feature", param }));
  });
});
