import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import type OpenAI from "openai";
import { payloads, runStream, sdkReadable, sseEvents } from "../__fixtures__/fixtures.ts";
import { requestThrough, responseThrough, streamThrough } from "../__fixtures__/pairs.ts";
import { outputBound } from "../../core/output-bound.ts";
import { DroppedParams } from "../../core/drops.ts";
import { CUSTOM_TOOL_SCHEMA } from "../../core/custom-tools.ts";
import { CalledTools, flattenNamespaces } from "./namespace-tools.ts";

const chatRequestFromResponses = requestThrough("responses", "chat");
const responseFromChatCompletion = responseThrough("responses", "chat");
const responsesStreamFromChat = streamThrough("responses", "chat");
const messagesRequestFromResponses = requestThrough("responses", "messages");
const responseFromMessage = responseThrough("responses", "messages");
const responsesStreamFromMessages = streamThrough("responses", "messages");

/** Codex 0.171's sub-agent tools, as captured (descriptions shortened). */
const MULTI_AGENT = {
  type: "namespace",
  name: "multi_agent_v1",
  description: "Tools for spawning and managing sub-agents.",
  tools: [
    { type: "function", name: "close_agent", description: "Close an agent.", strict: false, parameters: { type: "object", properties: { target: { type: "string" } }, required: ["target"], additionalProperties: false } },
    { type: "function", name: "spawn_agent", description: "Spawn an agent.", strict: false, parameters: { type: "object", properties: { message: { type: "string" } }, additionalProperties: false } },
    { type: "custom", name: "notes", description: "Freeform notes." },
  ],
};
const EXEC = { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } } } };
const request = { model: "m", input: "Hi", tools: [EXEC, MULTI_AGENT] };
const bound = (body: Record<string, unknown>) => outputBound(body, "responses", 4096, "lower");

describe("namespace tools, flattened", () => {
  it("to Anthropic: each inner tool as {namespace}__{name}, the namespace's description first; custom tools keep their one string input", () => {
    const body = messagesRequestFromResponses(request, new DroppedParams(false), bound(request));
    expect(body.tools).toEqual([
      { name: "exec_command", input_schema: EXEC.parameters },
      { name: "multi_agent_v1__close_agent", description: "multi_agent_v1: Tools for spawning and managing sub-agents.\n\nClose an agent.", strict: false, input_schema: MULTI_AGENT.tools[0]!.parameters },
      { name: "multi_agent_v1__spawn_agent", description: "multi_agent_v1: Tools for spawning and managing sub-agents.\n\nSpawn an agent.", strict: false, input_schema: MULTI_AGENT.tools[1]!.parameters },
      { name: "multi_agent_v1__notes", description: "multi_agent_v1: Tools for spawning and managing sub-agents.\n\nFreeform notes.", input_schema: CUSTOM_TOOL_SCHEMA },
    ]);
  });

  it("to Chat Completions: the same flat functions", () => {
    const body = chatRequestFromResponses(request, new DroppedParams(false), bound(request));
    expect((body.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(["exec_command", "multi_agent_v1__close_agent", "multi_agent_v1__spawn_agent", "multi_agent_v1__notes"]);
  });

  it("earlier calls carrying a namespace go back under the flat name, both ways", () => {
    const input = [
      { role: "user", content: "Spawn one." },
      { type: "function_call", call_id: "call_1", name: "spawn_agent", namespace: "multi_agent_v1", arguments: '{"message":"go"}' },
      { type: "function_call_output", call_id: "call_1", output: "agent-7" },
    ];
    const anthropic = messagesRequestFromResponses({ ...request, input }, new DroppedParams(false), 1000);
    expect((anthropic.messages as { content: unknown[] }[])[1]!.content).toEqual([{ type: "tool_use", id: "call_1", name: "multi_agent_v1__spawn_agent", input: { message: "go" } }]);
    const chat = chatRequestFromResponses({ ...request, input }, new DroppedParams(false), 1000);
    expect((chat.messages as { tool_calls?: { function: { name: string } }[] }[])[1]!.tool_calls![0]!.function.name).toBe("multi_agent_v1__spawn_agent");
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a namespace without a name", { type: "namespace", tools: [] }, "tools[0].name"],
    ["a built-in tool inside a namespace", { type: "namespace", name: "ns", tools: [{ type: "web_search" }] }, "tools[0].tools[0]"],
    ["an inner tool without a name", { type: "namespace", name: "ns", tools: [{ type: "function" }] }, "tools[0].tools[0].name"],
  ])("refuses %s, naming it", (_name, tool, param) => {
    expect(() => flattenNamespaces([tool])).toThrow(expect.objectContaining({ param }));
  });

  it("two tools that flatten to one name are a 400 naming the second", () => {
    expect(() => flattenNamespaces([{ type: "function", name: "ns__a" }, { type: "namespace", name: "ns", tools: [{ type: "function", name: "a" }] }])).toThrow(
      expect.objectContaining({ code: "invalid_body", param: "tools[1].tools[0].name" }),
    );
  });

  it("property: whatever the names, every flattened tool resolves back to its namespace and name, or flattening refused a clash", () => {
    const name = fc.stringMatching(/^[a-z_]{1,12}$/);
    const tool = fc.record({ type: fc.constantFrom("function", "custom"), name });
    const entry = fc.oneof(tool, fc.record({ type: fc.constant("namespace"), name, tools: fc.array(tool, { maxLength: 4 }) }));
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (tools) => {
        let leaves;
        try {
          leaves = flattenNamespaces(tools);
        } catch (error) {
          expect(error).toMatchObject({ code: "invalid_body" });
          return;
        }
        const called = new CalledTools({ tools });
        const expected = tools.flatMap((entry) =>
          entry.type === "namespace" ? (entry as { tools: { type: string; name: string }[] }).tools.map((inner) => ({ name: inner.name, namespace: entry.name, custom: inner.type === "custom" })) : [{ name: entry.name, custom: entry.type === "custom" }],
        );
        expect(leaves.map((leaf) => called.resolve(String(leaf.tool.name)))).toEqual(expected);
      }),
    );
  });
});

describe("namespace tool calls, mapped back", () => {
  const anthropicCall = (name: string) =>
    [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"${name}","input":{}}}\n\n`,
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"message\\":"}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":" \\"go\\"}"}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join("");

  it("Anthropic JSON: a function_call with the namespace and the tool's own name; a plain tool without namespace", () => {
    const output = responseFromMessage(
      {
        id: "msg_1",
        model: "claude",
        stop_reason: "tool_use",
        content: [
          { type: "tool_use", id: "toolu_1", name: "multi_agent_v1__spawn_agent", input: { message: "go" } },
          { type: "tool_use", id: "toolu_2", name: "exec_command", input: { cmd: "ls" } },
          { type: "tool_use", id: "toolu_3", name: "multi_agent_v1__notes", input: { input: "remember" } },
        ],
        usage: { input_tokens: 5, output_tokens: 9 },
      },
      request,
    ).output as Record<string, unknown>[];
    expect(output).toEqual([
      { id: "fc_toolu_1", type: "function_call", status: "completed", arguments: '{"message":"go"}', call_id: "toolu_1", name: "spawn_agent", namespace: "multi_agent_v1" },
      { id: "fc_toolu_2", type: "function_call", status: "completed", arguments: '{"cmd":"ls"}', call_id: "toolu_2", name: "exec_command" },
      { id: "ctc_toolu_3", type: "custom_tool_call", status: "completed", call_id: "toolu_3", name: "notes", namespace: "multi_agent_v1", input: "remember" },
    ]);
  });

  it("Anthropic stream: output_item.added / done and the argument events carry the namespace and own name; the SDK agrees", async () => {
    const { text } = runStream(responsesStreamFromMessages(request), sseEvents(anthropicCall("multi_agent_v1__spawn_agent")));
    const events = payloads(text);
    expect(events.find((event) => event.type === "response.output_item.added")).toMatchObject({ item: { type: "function_call", name: "spawn_agent", namespace: "multi_agent_v1", status: "in_progress" } });
    expect(events.filter((event) => event.type === "response.function_call_arguments.delta").map((event) => event.delta).join("")).toBe('{"message": "go"}');
    expect(events.find((event) => event.type === "response.function_call_arguments.done")).toMatchObject({ name: "spawn_agent", arguments: '{"message": "go"}' });
    expect(events.find((event) => event.type === "response.output_item.done")).toMatchObject({ item: { name: "spawn_agent", namespace: "multi_agent_v1", status: "completed" } });
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: "function_call", call_id: "toolu_1", name: "spawn_agent", namespace: "multi_agent_v1", arguments: '{"message": "go"}' });
  });

  it("Chat Completions JSON and stream: the same", async () => {
    const completion = {
      id: "chatcmpl-1",
      model: "gpt",
      created: 1,
      choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "multi_agent_v1__close_agent", arguments: '{"target":"a"}' } }] } }],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    };
    expect((responseFromChatCompletion(completion, request).output as unknown[])[0]).toMatchObject({ type: "function_call", name: "close_agent", namespace: "multi_agent_v1", arguments: '{"target":"a"}' });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "gpt", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse = [
      chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "multi_agent_v1__close_agent", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"target":"a"}' } }] }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ].join("");
    const { text } = runStream(responsesStreamFromChat(request), sseEvents(sse));
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output[0]).toMatchObject({ type: "function_call", call_id: "call_1", name: "close_agent", namespace: "multi_agent_v1", arguments: '{"target":"a"}' });
  });
});
