import { asRecord } from "../../upstreams/request-fields.ts";
import { OPENAI_CHAT, invalid, isSet, list, refuseUnhandledFields, unsupported } from "../../core/fields.ts";
import { imageUrlFromSource } from "../shared/images.ts";
import { openaiEffortFromThinking } from "../shared/reasoning-effort.ts";
import { chatToolChoice, toolChoiceFromAnthropic } from "../shared/tool-choice.ts";
import { argumentsFromToolInput } from "../../core/tool-input.ts";
import { ANTHROPIC_WEB_SEARCH_NAME, isAnthropicWebSearchTool } from "../shared/web-search.ts";
import type { DroppedParams } from "../../core/drops.ts";

type ChatMessage = Record<string, unknown>;

/** Top-level Messages fields with no Chat Completions word that only tune the answer: dropped, listed. */
const DROPPED_TOP_LEVEL: Record<string, string> = {
  top_k: "OpenAI-shape models have no top_k sampling",
  // A prompt-cache breakpoint: OpenAI caches prompts by itself, the answer is the same.
  cache_control: "OpenAI-shape models cache prompts by themselves",
  context_management: "OpenAI-shape models manage no context for the client",
  inference_geo: "OpenAI-shape models take no inference region",
  speed: "OpenAI-shape models have no speed setting",
};

const HANDLED = new Set([
  "model", "max_tokens", "messages", "system", "stream", "stop_sequences", "temperature", "top_p", "metadata",
  "tools", "tool_choice", "thinking", "output_config", "service_tier",
  ...Object.keys(DROPPED_TOP_LEVEL),
]);

/** OpenAI refuses a longer `user`. */
const OPENAI_USER_MAX_LENGTH = 64;

/**
 * An Anthropic Messages request -> a Chat Completions request (model still the public name).
 * `outputBound` is the request's one output bound (limits/output-bound.ts): max_tokens, capped.
 */
export function chatRequestFromMessages(request: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  refuseUnhandledFields(request, HANDLED, OPENAI_CHAT);
  for (const [field, why] of Object.entries(DROPPED_TOP_LEVEL)) dropped.dropIfSet(request, field, "", why);
  const context = new Context(dropped);
  const body: Record<string, unknown> = {
    model: request.model,
    messages: resultsFirst([...systemMessages(request.system, context), ...list(request.messages).flatMap((message, index) => chatMessages(message, `messages[${index}]`, context))]),
    // max_tokens is deprecated in Chat Completions and refused by reasoning models.
    max_completion_tokens: outputBound,
  };
  if (request.stream === true) body.stream = true;
  if (isSet(request.stop_sequences)) {
    if (!Array.isArray(request.stop_sequences)) throw invalid("stop_sequences", "expected an array of strings");
    if (request.stop_sequences.length > 0) body.stop = request.stop_sequences;
  }
  if (isSet(request.temperature)) body.temperature = request.temperature;
  if (isSet(request.top_p)) body.top_p = request.top_p;
  const metadata = asRecord(request.metadata);
  for (const [field, value] of Object.entries(metadata ?? {})) {
    if (field === "user_id") {
      // OpenAI refuses a `user` longer than 64 characters (Claude Code's user_id is ~170).
      if (typeof value === "string" && value.length <= OPENAI_USER_MAX_LENGTH) body.user = value;
      else if (isSet(value)) dropped.drop("metadata.user_id", `OpenAI takes a user of at most ${OPENAI_USER_MAX_LENGTH} characters`);
    } else if (isSet(value)) dropped.drop(`metadata.${field}`, "only metadata.user_id has an OpenAI equivalent (user)");
  }
  if (request.service_tier === "auto" || request.service_tier === "standard_only") body.service_tier = request.service_tier === "auto" ? "auto" : "default";
  else dropped.dropIfSet(request, "service_tier", "", "OpenAI-shape models take only the auto and standard_only tiers");
  // Anthropic's web search server tool: Chat Completions has none, so the model answers without it.
  const searchNames = new Set<string>();
  const tools = list(request.tools).flatMap((raw, index) => {
    const tool = asRecord(raw);
    if (!isAnthropicWebSearchTool(tool)) return [chatTool(raw, `tools[${index}]`, dropped)];
    dropped.drop(`tools[${index}]`, "this model's upstream (Chat Completions) has no web search tool; the model answers without searching");
    searchNames.add(typeof tool?.name === "string" ? tool.name : ANTHROPIC_WEB_SEARCH_NAME);
    return [];
  });
  if (isSet(request.tool_choice)) {
    const { choice } = toolChoiceFromAnthropic(request.tool_choice);
    if (choice.type === "function" && searchNames.has(choice.name)) throw unsupported("tool_choice", "it forces a web search, which this model's upstream (Chat Completions) cannot run");
    if (tools.length === 0 && (choice.type === "required" || choice.type === "function")) {
      if (searchNames.size > 0) throw unsupported("tool_choice", "it forces a tool call, and the only tool is web search, which this model's upstream (Chat Completions) cannot run");
      throw invalid("tool_choice", "a tool choice needs tools");
    }
  }
  if (tools.length > 0) {
    body.tools = tools;
    if (isSet(request.tool_choice)) {
      const { choice, disableParallel } = toolChoiceFromAnthropic(request.tool_choice);
      body.tool_choice = chatToolChoice(choice);
      if (disableParallel) body.parallel_tool_calls = false;
    }
  }
  const outputConfig = asRecord(request.output_config) ?? {};
  for (const field of Object.keys(outputConfig)) {
    if (field !== "effort" && field !== "format") dropped.dropIfSet(outputConfig, field, "output_config.", "has no OpenAI Chat Completions equivalent");
  }
  const effort = openaiEffortFromThinking(request.thinking, outputConfig.effort, dropped);
  if (effort) body.reasoning_effort = effort;
  const format = asRecord(outputConfig.format);
  if (format) {
    if (format.type !== "json_schema" || !asRecord(format.schema)) throw invalid("output_config.format", "expected a json_schema format with a schema");
    // Anthropic's structured output is always constrained, hence strict.
    body.response_format = { type: "json_schema", json_schema: { name: "output", schema: format.schema, strict: true } };
  }
  return body;
}

/** What the block mappers share: where dropped paths are recorded. */
class Context {
  readonly dropped: DroppedParams;

  constructor(dropped: DroppedParams) {
    this.dropped = dropped;
  }

  /** A block's prompt-cache breakpoint: OpenAI caches by itself, so it is dropped (listed). */
  cacheControl(block: Record<string, unknown>, field: string): void {
    this.dropped.dropIfSet(block, "cache_control", `${field}.`, "OpenAI-shape models cache prompts by themselves");
  }

  /** Citations carried on a text block of the history: Chat Completions text has none. */
  citations(block: Record<string, unknown>, field: string): void {
    if (list(block.citations).length > 0) this.dropped.drop(`${field}.citations`, "Chat Completions text carries no citations");
  }
}

/**
 * A system message said between an assistant's tool calls and their results (a mid-conversation
 * system message, same-shape Anthropic takes it anywhere) moves to after the last owed result:
 * Chat Completions wants the `tool` messages right after the calls.
 */
function resultsFirst(messages: ChatMessage[]): ChatMessage[] {
  const ordered: ChatMessage[] = [];
  const owed = new Set<unknown>();
  let waiting: ChatMessage[] = [];
  const flush = () => {
    owed.clear();
    ordered.push(...waiting);
    waiting = [];
  };
  for (const message of messages) {
    if (message.role === "system" && owed.size > 0) {
      waiting.push(message);
      continue;
    }
    if (message.role === "tool") {
      ordered.push(message);
      owed.delete(message.tool_call_id);
      if (owed.size === 0) flush();
      continue;
    }
    flush();
    ordered.push(message);
    if (message.role === "assistant") for (const call of list(message.tool_calls)) owed.add(asRecord(call)?.id);
  }
  flush();
  return ordered;
}

/** `system`: a string, or text blocks (kept as text parts, so their boundaries survive). */
function systemMessages(system: unknown, context: Context): ChatMessage[] {
  if (!isSet(system)) return [];
  if (typeof system === "string") return [{ role: "system", content: system }];
  return [{ role: "system", content: textParts(system, "system", context) }];
}

function textParts(blocks: unknown, path: string, context: Context): { type: "text"; text: string }[] {
  if (!Array.isArray(blocks)) throw invalid(path, "expected a string or an array of text blocks");
  return blocks.map((raw, index) => {
    const block = asRecord(raw);
    const field = `${path}[${index}]`;
    if (block?.type !== "text" || typeof block.text !== "string") throw unsupported(field, `${String(block?.type)} blocks are not accepted here`);
    context.cacheControl(block, field);
    context.citations(block, field);
    return { type: "text", text: block.text };
  });
}

function chatMessages(raw: unknown, path: string, context: Context): ChatMessage[] {
  const message = asRecord(raw);
  switch (message?.role) {
    case "user":
      return userMessages(message.content, `${path}.content`, context);
    case "assistant":
      return assistantMessage(message.content, `${path}.content`, context);
    case "system":
      return [{ role: "system", content: typeof message.content === "string" ? message.content : textParts(message.content, `${path}.content`, context) }];
    default:
      throw invalid(`${path}.role`, "expected user or assistant");
  }
}

/**
 * A user turn. Its tool_result blocks become `tool` messages, in order and first, since Chat
 * Completions wants them right after the assistant's tool_calls; the rest is one user message.
 */
function userMessages(content: unknown, path: string, context: Context): ChatMessage[] {
  if (typeof content === "string") return [{ role: "user", content }];
  if (!Array.isArray(content)) throw invalid(path, "expected a string or an array of content blocks");
  const tools: ChatMessage[] = [];
  const parts: Record<string, unknown>[] = [];
  content.forEach((raw, index) => {
    const block = asRecord(raw);
    const field = `${path}[${index}]`;
    switch (block?.type) {
      case "text":
        context.cacheControl(block, field);
        context.citations(block, field);
        parts.push({ type: "text", text: block.text });
        return;
      case "image":
        context.cacheControl(block, field);
        parts.push({ type: "image_url", image_url: { url: imageUrlFromSource(block.source, `${field}.source`) } });
        return;
      case "tool_result":
        context.cacheControl(block, field);
        tools.push(toolMessage(block, field, context));
        return;
      default:
        throw unsupported(field, `${String(block?.type)} blocks have no OpenAI Chat Completions equivalent`);
    }
  });
  return parts.length > 0 ? [...tools, { role: "user", content: parts }] : tools;
}

/**
 * A tool result -> a `tool` message. `is_error` has no Chat Completions field; the result's own
 * text (the error message) is what the model reads in both APIs, so it is passed as is.
 */
function toolMessage(block: Record<string, unknown>, field: string, context: Context): ChatMessage {
  if (typeof block.tool_use_id !== "string") throw invalid(`${field}.tool_use_id`, "expected a string");
  const content = block.content;
  if (!isSet(content)) return { role: "tool", tool_call_id: block.tool_use_id, content: "" };
  if (typeof content === "string") return { role: "tool", tool_call_id: block.tool_use_id, content };
  return { role: "tool", tool_call_id: block.tool_use_id, content: textParts(content, `${field}.content`, context) };
}

/**
 * An assistant turn: text blocks join into `content` (their concatenation is exactly what the
 * model wrote), tool_use blocks become `tool_calls`. Earlier thinking blocks are dropped (listed),
 * never turned into text (LiteLLM #26916): their signatures mean nothing to another provider, and
 * the model's answer does not depend on seeing them again. A turn left empty is left out.
 */
function assistantMessage(content: unknown, path: string, context: Context): ChatMessage[] {
  if (typeof content === "string") return [{ role: "assistant", content }];
  if (!Array.isArray(content)) throw invalid(path, "expected a string or an array of content blocks");
  let text = "";
  const toolCalls: Record<string, unknown>[] = [];
  content.forEach((raw, index) => {
    const block = asRecord(raw);
    const field = `${path}[${index}]`;
    switch (block?.type) {
      case "text":
        context.cacheControl(block, field);
        context.citations(block, field);
        text += typeof block.text === "string" ? block.text : "";
        return;
      case "tool_use":
        context.cacheControl(block, field);
        toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: argumentsFromToolInput(block.input) } });
        return;
      case "thinking":
      case "redacted_thinking":
        context.dropped.drop(field, "earlier thinking blocks cannot be sent to an OpenAI-shape model (their signatures are Anthropic's)");
        return;
      case "server_tool_use":
      case "web_search_tool_result":
        // An earlier web search Anthropic ran: no chat form; the answer that used it stays.
        if (block.type === "web_search_tool_result" || block.name === ANTHROPIC_WEB_SEARCH_NAME) {
          context.dropped.drop(field, "an earlier web search cannot be sent to an OpenAI-shape model; the answer that used it stays");
          return;
        }
        throw unsupported(field, `${String(block.type)} blocks have no OpenAI Chat Completions equivalent`);
      default:
        throw unsupported(field, `${String(block?.type)} blocks have no OpenAI Chat Completions equivalent`);
    }
  });
  if (text.length === 0 && toolCalls.length === 0 && content.length > 0) return [];
  const message: ChatMessage = { role: "assistant", content: text.length === 0 && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return [message];
}

/** Tool fields that only tune how the tool is offered or streamed: dropped, listed. */
const DROPPED_TOOL_FIELDS: Record<string, string> = {
  cache_control: "OpenAI-shape models cache prompts by themselves",
  eager_input_streaming: "OpenAI-shape models stream tool arguments as they come",
  input_examples: "OpenAI-shape models take no tool input examples",
  defer_loading: "OpenAI-shape models load every tool up front",
  allowed_callers: "OpenAI-shape models call tools only directly",
};

function chatTool(raw: unknown, field: string, dropped: DroppedParams): Record<string, unknown> {
  const tool = asRecord(raw);
  if (!tool) throw invalid(field, "expected a tool");
  if (isSet(tool.type) && tool.type !== "custom") throw unsupported(`${field}.type`, `the server tool ${String(tool.type)} has no OpenAI Chat Completions equivalent`);
  for (const [key, value] of Object.entries(tool)) {
    const why = DROPPED_TOOL_FIELDS[key];
    if (why !== undefined) dropped.dropIfSet(tool, key, `${field}.`, why);
    else if (!TOOL_FIELDS.has(key) && isSet(value)) throw unsupported(`${field}.${key}`, "has no OpenAI Chat Completions equivalent");
  }
  if (typeof tool.name !== "string") throw invalid(`${field}.name`, "expected a tool name");
  const fn: Record<string, unknown> = { name: tool.name, parameters: tool.input_schema ?? { type: "object", properties: {} } };
  if (typeof tool.description === "string") fn.description = tool.description;
  if (typeof tool.strict === "boolean") fn.strict = tool.strict;
  return { type: "function", function: fn };
}

const TOOL_FIELDS = new Set(["name", "description", "input_schema", "type", "strict"]);
