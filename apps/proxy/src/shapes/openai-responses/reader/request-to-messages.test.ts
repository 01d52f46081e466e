import { describe, expect, it } from "vitest";
import { fixtureJson } from "../../__fixtures__/fixtures.ts";
import { requestThrough, responseThrough } from "../../__fixtures__/pairs.ts";
import { DroppedParams } from "../../../core/drops.ts";
import { CUSTOM_TOOL_SCHEMA } from "../../../core/custom-tools.ts";

const translateWith = requestThrough("responses", "messages");

const messagesRequestFromResponses = (request: Record<string, unknown>, strict = false) => translateWith(request, new DroppedParams(strict), bound(request));
const responseFromMessage = responseThrough("responses", "messages");
import { outputBound } from "../../../core/output-bound.ts";

/** The route's output bound for a model whose maximum output is 4096 tokens. */
const bound = (request: Record<string, unknown>) => outputBound(request, "responses", 4096, "lower");

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("responses -> messages request", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "string input and instructions; max_output_tokens -> max_tokens; user -> metadata.user_id",
      { model: "gpt-x", input: "Hello", instructions: "Be brief.", max_output_tokens: 64, temperature: 0.4, user: "u-1", metadata: { team: "a" }, stream: true },
      { model: "gpt-x", max_tokens: 64, system: "Be brief.", messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }], temperature: 0.4, metadata: { user_id: "u-1" }, stream: true },
    ],
    [
      "no max_output_tokens: the documented default; leading system items join the system prompt",
      { model: "gpt-x", instructions: "One.", input: [{ role: "system", content: "Two." }, { role: "user", content: "Hi" }] },
      { model: "gpt-x", max_tokens: 4096, system: [{ type: "text", text: "One." }, { type: "text", text: "Two." }], messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] },
    ],
    [
      "images, function calls in the assistant turn, outputs (with an image) as tool_result blocks in one user turn",
      {
        model: "gpt-x",
        input: [
          { role: "user", content: [{ type: "input_text", text: "Weather?" }, { type: "input_image", image_url: "https://example.com/sky.jpg", detail: "auto" }] },
          { type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call", call_id: "toolu_2", name: "get_weather", arguments: '{"city":"Tokyo"}' },
          { type: "function_call_output", call_id: "toolu_1", output: "Sunny" },
          { type: "function_call_output", call_id: "toolu_2", output: [{ type: "input_text", text: "See" }, { type: "input_image", image_url: "data:image/png;base64,iVBO" }] },
        ],
        tools: [{ type: "function", name: "get_weather", parameters: weather, strict: false }],
        tool_choice: "required",
        parallel_tool_calls: false,
      },
      {
        model: "gpt-x",
        max_tokens: 4096,
        messages: [
          { role: "user", content: [{ type: "text", text: "Weather?" }, { type: "image", source: { type: "url", url: "https://example.com/sky.jpg" } }] },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
              { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Tokyo" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "Sunny" },
              { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "See" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBO" } }] },
            ],
          },
        ],
        tools: [{ name: "get_weather", input_schema: weather, strict: false }],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
      },
    ],
    [
      "reasoning effort and a JSON-schema format share output_config",
      { model: "gpt-x", input: "Hi", reasoning: { effort: "medium", summary: "auto" }, text: { format: { type: "json_schema", name: "w", schema: weather } } },
      {
        model: "gpt-x",
        max_tokens: 4096,
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
        thinking: { type: "adaptive" },
        output_config: { effort: "medium", format: { type: "json_schema", schema: weather } },
      },
    ],
  ])("%s", (_name, request, expected) => {
    expect(messagesRequestFromResponses(request)).toEqual(expected);
  });

  it("reasoning items returned by this gateway go back as the same signed thinking blocks", () => {
    const returned = responseFromMessage(fixtureJson("anthropic-messages/thinking-tool-use.json"), { model: "gpt-x" });
    const output = returned.output as Record<string, unknown>[];
    const request = messagesRequestFromResponses({
      model: "gpt-x",
      input: [{ role: "user", content: "Weather in Paris?" }, ...output, { type: "function_call_output", call_id: "toolu_01Hk7gT2cVb9Xq3Lm5Wn8Rz1", output: "Sunny" }],
    });
    expect((request.messages as { content: unknown }[])[1]!.content).toEqual((fixtureJson("anthropic-messages/thinking-tool-use.json").content as unknown[]));
  });

  it("reasoning encrypted by OpenAI (a session begun on an OpenAI model) is dropped and listed, never sent as a signature", () => {
    const dropped = new DroppedParams(false);
    const request = translateWith(
      {
        model: "claude-x",
        input: [
          { role: "user", content: "Hi" },
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: "gAAAAABpZ3JhbmRvbS1mZXJuZXQtdG9rZW4" },
          { role: "assistant", content: [{ type: "output_text", text: "Hello." }] },
          { role: "user", content: "Again" },
        ],
      },
      dropped,
      4096,
    );
    expect(JSON.stringify(request.messages)).not.toContain("gAAAA");
    expect(JSON.stringify(request.messages)).not.toContain("thinking");
    expect(dropped.paths).toEqual(["input[1]"]);
  });

  it("Codex's request: custom tools take one string input, custom calls and outputs are tool_use / tool_result, tuning fields dropped and listed", () => {
    const dropped = new DroppedParams(false);
    const body = translateWith(fixtureJson("codex/request.json"), dropped, bound(fixtureJson("codex/request.json")));
    expect(body).toEqual({
      model: "gpt-x",
      max_tokens: 4096,
      system: "You are Codex, a coding agent.",
      stream: true,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "<environment_context>cwd: /repo</environment_context>" },
            { type: "text", text: "Add a README." },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Plan the change.", signature: "EqQBCkYIBxgCKkBsigned" },
            { type: "tool_use", id: "call_shell_1", name: "shell", input: { command: ["ls"] } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_shell_1", content: "src\n" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "call_patch_1", name: "apply_patch", input: { input: "*** Begin Patch\n*** Add File: README.md\n+hello\n*** End Patch\n" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_patch_1", content: "Success. Updated the following files:\nA README.md\n" },
            { type: "text", text: "Thanks, now commit." },
          ],
        },
      ],
      tools: [
        {
          name: "shell",
          description: "Runs a shell command and returns its output.",
          strict: false,
          input_schema: { type: "object", properties: { command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } }, required: ["command"], additionalProperties: false },
        },
        {
          name: "apply_patch",
          description: expect.stringMatching(/^Use the `apply_patch` tool to edit files\.\n\nThe input must follow this lark grammar:\nstart: begin_patch hunk\+ end_patch/),
          input_schema: CUSTOM_TOOL_SCHEMA,
        },
      ],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      thinking: { type: "adaptive" },
      output_config: { effort: "medium" },
    });
    // include: ["reasoning.encrypted_content"] is met (the signature is the encrypted content), so it is not listed.
    expect(dropped.paths).toEqual(["prompt_cache_key", "tools[1].format", "text.verbosity"]);
    expect(() => messagesRequestFromResponses(fixtureJson("codex/request.json"), true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "prompt_cache_key" }));
  });

  it("a developer item after the conversation started stays a system message in its place (folded by the request drops when the model lacks them)", () => {
    const body = messagesRequestFromResponses({ model: "gpt-x", input: [{ role: "developer", content: "First." }, { role: "user", content: "Hi" }, { role: "developer", content: [{ type: "input_text", text: "Later." }] }] });
    expect(body).toMatchObject({ system: "First.", messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }, { role: "system", content: [{ type: "text", text: "Later." }] }] });
  });

  it("tool_choice naming a custom tool forces that tool", () => {
    const body = messagesRequestFromResponses({ model: "gpt-x", input: "Hi", tools: [{ type: "custom", name: "apply_patch" }], tool_choice: { type: "custom", name: "apply_patch" } });
    expect(body).toMatchObject({ tools: [{ name: "apply_patch", input_schema: CUSTOM_TOOL_SCHEMA }], tool_choice: { type: "tool", name: "apply_patch" } });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["store: true", { store: true }, ["store"]],
    ["verbosity", { text: { verbosity: "high" } }, ["text.verbosity"]],
    ["a temperature above 1", { temperature: 1.5 }, ["temperature"]],
    ["a reasoning item without encrypted_content", { input: [{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "t" }] }, { role: "user", content: "Hi" }] }, ["input[0]"]],
    ["a flex tier", { service_tier: "flex" }, ["service_tier"]],
    ["truncation auto, context management, max_tool_calls", { truncation: "auto", context_management: [{ type: "compaction" }], max_tool_calls: 3 }, ["context_management", "max_tool_calls", "truncation"]],
    ["include values for tools it does not run", { include: ["reasoning.encrypted_content", "web_search_call.action.sources"] }, ["include[1]"]],
    ["an image detail", { input: [{ role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png", detail: "high" }] }] }, ["input[0].content[0].detail"]],
    ["parallel calls without tools", { parallel_tool_calls: true }, ["parallel_tool_calls"]],
    ["Codex's client_metadata", { client_metadata: { thread_id: "t", "x-codex-window-id": "w" } }, ["client_metadata"]],
    ["a safety_identifier other than user (Anthropic carries one user id)", { user: "u-1", safety_identifier: "s-1" }, ["safety_identifier"]],
    ["cache options, image compression and OpenAI's access programs", { prompt_cache_options: { ttl: "12h" }, image: { context_compression: "enabled" }, access_programs: { cyber: "standard" } }, ["prompt_cache_options", "image.context_compression", "access_programs"]],
    ["an earlier web search", { input: [{ role: "user", content: "Hi" }, { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "q" } }] }, ["input[1]"]],
  ])("drops %s, listing it", (_name, extra, paths) => {
    const dropped = new DroppedParams(false);
    translateWith({ model: "gpt-x", input: "Hi", ...extra }, dropped, bound({ model: "gpt-x", input: "Hi", ...extra }));
    expect(dropped.paths).toEqual(paths);
    expect(() => messagesRequestFromResponses({ model: "gpt-x", input: "Hi", ...extra }, true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: paths[0] }));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a built-in tool", { tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }, "tools[0]"],
    ["previous_response_id", { previous_response_id: "resp_1" }, "previous_response_id"],
    ["json_object", { text: { format: { type: "json_object" } } }, "text.format"],
    ["logprobs by include", { include: ["message.output_text.logprobs"] }, "include[0]"],
    ["top_logprobs", { top_logprobs: 3 }, "top_logprobs"],
    ["background", { background: true }, "background"],
    ["moderation", { moderation: { model: "omni-moderation-latest" } }, "moderation"],
    ["a cache prewarm (it answers nothing)", { prompt_cache_options: { prewarm: true } }, "prompt_cache_options.prewarm"],
    ["an unknown field that is not bookkeeping", { prompt_template_vars: {} }, "prompt_template_vars"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    expect(() => messagesRequestFromResponses({ model: "gpt-x", input: "Hi", ...extra })).toThrow(expect.objectContaining({ code: "unsupported_feature", param }));
  });
});
