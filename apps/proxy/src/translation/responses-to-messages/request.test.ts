import { describe, expect, it } from "vitest";
import { fixtureJson } from "../__fixtures__/fixtures.ts";
import { messagesRequestFromResponses } from "./request.ts";
import { responseFromMessage } from "./response.ts";

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

  it.each<[string, Record<string, unknown>, string]>([
    ["a built-in tool", { tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }, "tools[0]"],
    ["previous_response_id", { previous_response_id: "resp_1" }, "previous_response_id"],
    ["store: true", { store: true }, "store"],
    ["json_object", { text: { format: { type: "json_object" } } }, "text.format"],
    ["verbosity", { text: { verbosity: "high" } }, "text.verbosity"],
    ["a temperature above 1", { temperature: 1.5 }, "temperature"],
    ["a reasoning item without encrypted_content", { input: [{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "t" }] }] }, "input[0].encrypted_content"],
    ["a system item mid-conversation", { input: [{ role: "user", content: "Hi" }, { role: "system", content: "late" }] }, "input[1]"],
    ["a flex tier", { service_tier: "flex" }, "service_tier"],
  ])("refuses %s with a 400 naming the field", (_name, extra, param) => {
    expect(() => messagesRequestFromResponses({ model: "gpt-x", input: "Hi", ...extra })).toThrow(expect.objectContaining({ code: "unsupported_feature", param }));
  });
});
