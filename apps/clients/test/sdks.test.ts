import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { z } from "zod";
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool, type Model } from "@openai/agents";
import { ChatOpenAI } from "@langchain/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { tool as langchainTool } from "@langchain/core/tools";
import { HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { carriesToolResult, completed, ctx, expectBilled, generatedText, marker, mintKey, toolDirective, upstream } from "./support/suite.ts";

/**
 * The agent SDKs, as an application uses them, against the demo gateway with the simulator in strict
 * mode, on an OpenAI-shape and an Anthropic-shape model: the OpenAI Agents SDK (its Responses and
 * Chat Completions model classes, a function tool, a streamed run) and LangChain (ChatOpenAI over
 * Chat Completions and over Responses, ChatAnthropic), each a two-step tool use with both steps
 * streamed, billed.
 */
// No traces to api.openai.com.
setTracingDisabled(true);

const MODELS = [
  { model: "gpt-4o-mini", shape: "openai" },
  { model: "claude-sonnet-5-5", shape: "anthropic" },
] as const;

const WORD_TOOL = { name: "get_word", description: "Returns the secret word of a topic." };

async function lastTurns(mark: string) {
  const records = completed(await upstream(mark));
  expect(records.length, "a tool call and the turn after it").toBeGreaterThanOrEqual(2);
  for (const record of records) expect(record.stream, `${record.path} streamed`).toBe(true);
  return records;
}

describe.concurrent("OpenAI Agents SDK", () => {
  const classes = [
    { name: "OpenAIResponsesModel", make: (client: OpenAI, model: string): Model => new OpenAIResponsesModel(client, model) },
    { name: "OpenAIChatCompletionsModel", make: (client: OpenAI, model: string): Model => new OpenAIChatCompletionsModel(client, model) },
  ];
  const cases = classes.flatMap((modelClass) => MODELS.map((entry) => ({ ...entry, modelClass: modelClass.name, make: modelClass.make })));

  it.each(cases)("$modelClass on $model: a streamed run with a function tool", async ({ model, make }) => {
    const { id, key } = await mintKey(`agents ${model}`);
    const mark = marker();
    const client = new OpenAI({ baseURL: `${ctx().proxyUrl}/v1`, apiKey: key, maxRetries: 0 });
    const calls: string[] = [];
    const getWord = tool({
      ...WORD_TOOL,
      parameters: z.object({ topic: z.string() }),
      execute: async ({ topic }) => {
        calls.push(topic);
        return `the word for ${topic} is quince-${mark}`;
      },
    });
    const agent = new Agent({ name: "tester", instructions: "Answer briefly.", tools: [getWord], model: make(client, model) });
    const result = await run(agent, `What is the secret word of fruit? ${mark} ${toolDirective("get_word", { topic: "fruit" })}`, { stream: true });
    let streamed = "";
    for await (const delta of result.toTextStream()) streamed += delta;
    await result.completed;
    expect(calls).toEqual(["fruit"]);
    const final = (await lastTurns(mark)).at(-1)!;
    expect(carriesToolResult(final, `quince-${mark}`), "the tool's result went back upstream").toBe(true);
    expect(result.finalOutput).toBe(generatedText(final));
    expect(streamed).toBe(result.finalOutput);
    await expectBilled(id, mark);
  });
});

/** Streams `messages` through `model`, concatenating the chunks into one message. */
async function streamed(model: { stream(messages: BaseMessage[]): Promise<AsyncIterable<AIMessageChunk>> }, messages: BaseMessage[]): Promise<AIMessageChunk> {
  let whole: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(messages)) whole = whole === undefined ? chunk : whole.concat(chunk);
  expect(whole, "no chunk").toBeDefined();
  return whole!;
}

describe.concurrent("LangChain", () => {
  const kinds = [
    { name: "ChatOpenAI (Chat Completions)", make: (model: string, key: string): BaseChatModel => new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${ctx().proxyUrl}/v1` }, maxRetries: 0, useResponsesApi: false, streamUsage: true }) },
    { name: "ChatOpenAI (Responses)", make: (model: string, key: string): BaseChatModel => new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${ctx().proxyUrl}/v1` }, maxRetries: 0, useResponsesApi: true }) },
    { name: "ChatAnthropic", make: (model: string, key: string): BaseChatModel => new ChatAnthropic({ model, apiKey: key, anthropicApiUrl: ctx().proxyUrl, maxRetries: 0, maxTokens: 1024 }) },
  ];
  const cases = kinds.flatMap((kind) => MODELS.map((entry) => ({ ...entry, kind: kind.name, make: kind.make })));

  it.each(cases)("$kind on $model: a tool call, its result, the answer, both steps streamed", async ({ model, make }) => {
    const { id, key } = await mintKey(`langchain ${model}`);
    const mark = marker();
    const getWord = langchainTool(async ({ topic }: { topic: string }) => `the word for ${topic} is quince-${mark}`, { ...WORD_TOOL, schema: z.object({ topic: z.string() }) });
    const chat = make(model, key);
    const withTools = chat.bindTools!([getWord]);
    const question = new HumanMessage(`What is the secret word of fruit? ${mark} ${toolDirective("get_word", { topic: "fruit" })}`);
    const first = await streamed(withTools, [question]);
    expect(first.tool_calls?.map((call) => [call.name, call.args])).toEqual([["get_word", { topic: "fruit" }]]);
    const call = first.tool_calls![0]!;
    const output = await getWord.invoke(call.args as { topic: string });
    const second = await streamed(withTools, [question, first, new ToolMessage({ tool_call_id: call.id!, content: String(output) })]);
    const final = (await lastTurns(mark)).at(-1)!;
    expect(carriesToolResult(final, `quince-${mark}`), "the tool's result went back upstream").toBe(true);
    expect(second.text).toBe(generatedText(final));
    expect(second.usage_metadata, "usage reported to the client").toBeDefined();
    // LangChain adds message_start's provisional output_tokens to message_delta's final count when it
    // concatenates Anthropic chunks (as it does against Anthropic itself): at most one more.
    expect(second.usage_metadata!.output_tokens - final.usage!.output_tokens).toBeGreaterThanOrEqual(0);
    expect(second.usage_metadata!.output_tokens - final.usage!.output_tokens).toBeLessThanOrEqual(1);
    await expectBilled(id, mark);
  });
});
