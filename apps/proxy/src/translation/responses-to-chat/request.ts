import { asRecord } from "../../upstreams/request-fields.ts";
import { readInput, type InputItem, type InputPart } from "../responses-input/read-input.ts";
import { STATEFUL_FIELDS, statefulFields } from "../responses-input/refused-fields.ts";
import { screenUnhandledFields } from "../shared/bookkeeping-fields.ts";
import { CUSTOM_TOOL_SCHEMA, customToolArguments, customToolDefinition } from "../../core/custom-tools.ts";
import { OPENAI_CHAT, invalid, isSet, list, unsupported } from "../../core/fields.ts";
import { flattenNamespaces, namespacedName } from "../shared/namespace-tools.ts";
import { isWebSearchTool } from "../shared/web-search.ts";
import { chatToolChoice, toolChoiceFromResponses } from "../shared/tool-choice.ts";
import type { DroppedParams } from "../../core/drops.ts";

type ChatMessage = Record<string, unknown>;

const HANDLED = new Set([
  "model", "input", "instructions", "stream", "max_output_tokens", "temperature", "top_p", "user", "safety_identifier",
  "prompt_cache_key", "prompt_cache_retention", "service_tier", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning",
  // Kept on the returned response object, never sent upstream.
  "metadata",
  // Stream options only tune obfuscation padding, which is not sent.
  "stream_options",
  // Checked by statefulFields.
  ...STATEFUL_FIELDS,
]);

/** Fields with the same name and meaning in both OpenAI APIs. */
const SAME_NAME = ["temperature", "top_p", "user", "safety_identifier", "prompt_cache_key", "prompt_cache_retention", "service_tier"] as const;

/**
 * A Responses request -> a Chat Completions request, for an OpenAI upstream without /responses.
 * `outputBound` is the request's one output bound (limits/output-bound.ts), always sent.
 */
export function chatRequestFromResponses(request: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  screenUnhandledFields(request, HANDLED, OPENAI_CHAT, dropped);
  // Chat Completions returns no reasoning at all: encrypted reasoning cannot be included; and it
  // runs no web search (a web search tool is dropped below).
  statefulFields(request, dropped, { encryptedReasoning: false, webSearch: false });
  const messages: ChatMessage[] = [];
  if (isSet(request.instructions)) {
    if (typeof request.instructions !== "string") throw invalid("instructions", "expected a string");
    messages.push({ role: "system", content: request.instructions });
  }
  const conversation = new ChatConversation(messages);
  for (const item of readInput(request.input)) addItem(conversation, item, dropped);
  conversation.finish();
  const body: Record<string, unknown> = { model: request.model, messages };
  if (request.stream === true) body.stream = true;
  // Exactly what was reserved: max_output_tokens capped, or the model's maximum when it is not set.
  if (outputBound !== undefined) body.max_completion_tokens = outputBound;
  for (const field of SAME_NAME) if (isSet(request[field])) body[field] = request[field];
  const tools = flattenNamespaces(request.tools).flatMap(({ tool, field }) => chatTool(tool, field, dropped));
  const choice = isSet(request.tool_choice) ? toolChoiceFromResponses(request.tool_choice) : null;
  if (tools.length > 0) {
    body.tools = tools;
    if (choice) body.tool_choice = chatToolChoice(choice);
    if (typeof request.parallel_tool_calls === "boolean") body.parallel_tool_calls = request.parallel_tool_calls;
  } else if (choice?.type === "required" || choice?.type === "function") {
    throw invalid("tool_choice", "a tool choice needs tools");
  } else if (typeof request.parallel_tool_calls === "boolean") {
    dropped.drop("parallel_tool_calls", "there are no tools to call in parallel");
  }
  textConfig(body, asRecord(request.text));
  const reasoning = asRecord(request.reasoning);
  // Summaries are best effort on the Responses API too (a model may give none).
  dropped.dropIfSet(reasoning, "summary", "reasoning.", "Chat Completions returns no reasoning summaries");
  dropped.dropIfSet(reasoning, "generate_summary", "reasoning.", "Chat Completions returns no reasoning summaries");
  if (isSet(reasoning?.effort)) body.reasoning_effort = reasoning?.effort;
  return body;
}

/**
 * The chat messages of a conversation, in input order, except a system/developer message said
 * between an assistant's tool calls and their `tool` messages: Chat Completions wants those right
 * after the calls, so it waits until the last owed result is in (or the conversation moves on).
 */
class ChatConversation {
  private readonly messages: ChatMessage[];
  /** Call ids of the last assistant message that no tool message has answered yet. */
  private readonly owed = new Set<string>();
  private waiting: ChatMessage[] = [];

  constructor(messages: ChatMessage[]) {
    this.messages = messages;
  }

  /** Any message but a tool result: what waited is said first. */
  push(message: ChatMessage): void {
    if (message.role === "system" || message.role === "developer") {
      this.waiting.push(message);
      if (this.owed.size === 0) this.flush();
      return;
    }
    this.flush();
    this.messages.push(message);
  }

  /** A tool call: calls after an assistant message (or after each other) belong to that one assistant turn. */
  call(call: Record<string, unknown>, callId: string): void {
    const last = this.messages.at(-1);
    if (last?.role === "assistant") last.tool_calls = [...list(last.tool_calls), call];
    else this.push({ role: "assistant", content: null, tool_calls: [call] });
    this.owed.add(callId);
  }

  toolResult(message: ChatMessage, callId: string): void {
    this.messages.push(message);
    this.owed.delete(callId);
    if (this.owed.size === 0) this.flush();
  }

  finish(): void {
    this.flush();
  }

  private flush(): void {
    this.owed.clear();
    if (this.waiting.length === 0) return;
    this.messages.push(...this.waiting);
    this.waiting = [];
  }
}

function addItem(conversation: ChatConversation, item: InputItem, dropped: DroppedParams): void {
  switch (item.kind) {
    case "message":
      // A system/developer message stays one in its place (Chat Completions takes them anywhere).
      conversation.push(message(item));
      return;
    case "function_call":
    case "custom_tool_call": {
      const args = item.kind === "function_call" ? item.arguments : JSON.stringify(customToolArguments(item.input));
      conversation.call({ id: item.callId, type: "function", function: { name: namespacedName(item.namespace, item.name), arguments: args } }, item.callId);
      return;
    }
    case "function_call_output":
    case "custom_tool_call_output":
      conversation.toolResult({ role: "tool", tool_call_id: item.callId, content: typeof item.output === "string" ? item.output : textParts(item.output, `${item.field}.output`) }, item.callId);
      return;
    case "reasoning":
      // Earlier reasoning only informs the model; Chat Completions has no way to send it back.
      dropped.drop(item.field, "reasoning items cannot be sent through Chat Completions");
      return;
    case "web_search_call":
      dropped.drop(item.field, "an earlier web search cannot be sent through Chat Completions; the answer that used it stays");
      return;
    default: {
      const never: never = item;
      return never;
    }
  }
}

function message(item: Extract<InputItem, { kind: "message" }>): ChatMessage {
  const field = `${item.field}.content`;
  if (typeof item.content === "string") return { role: item.role, content: item.content };
  switch (item.role) {
    case "user":
      return { role: "user", content: item.content.map((part, index) => userPart(part, `${field}[${index}]`)) };
    case "system":
    case "developer":
      return { role: item.role, content: textParts(item.content, field) };
    case "assistant": {
      const refusal = item.content.filter((part) => part.type === "refusal").map((part) => part.text).join("");
      const text = item.content.filter((part) => part.type === "text").map((part) => part.text).join("");
      if (item.content.some((part) => part.type === "image")) throw unsupported(field, "assistant messages carry no images");
      return refusal.length > 0 && text.length === 0 ? { role: "assistant", content: null, refusal } : { role: "assistant", content: text };
    }
    default: {
      const never: never = item.role;
      return never;
    }
  }
}

function userPart(part: InputPart, field: string): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image_url", image_url: part.detail === undefined ? { url: part.url } : { url: part.url, detail: part.detail } };
    case "refusal":
      throw invalid(field, "refusal parts belong to assistant messages");
    default: {
      const never: never = part;
      return never;
    }
  }
}

function textParts(parts: InputPart[], field: string): { type: "text"; text: string }[] {
  return parts.map((part, index) => {
    if (part.type !== "text") throw unsupported(`${field}[${index}]`, `${part.type} parts have no Chat Completions equivalent here`);
    return { type: "text", text: part.text };
  });
}

/**
 * A function tool as is; a custom (freeform) tool as a function with one string argument
 * (namespaces already flattened into both); web search, which Chat Completions cannot run, dropped
 * (the model answers without it); other built-in tools refused.
 */
function chatTool(tool: Record<string, unknown>, field: string, dropped: DroppedParams): Record<string, unknown>[] {
  if (isWebSearchTool(tool)) {
    dropped.drop(field, "this model's upstream (Chat Completions) has no web search tool");
    return [];
  }
  if (tool.type === "custom") {
    return [{ type: "function", function: { ...customToolDefinition(tool, field, dropped), parameters: CUSTOM_TOOL_SCHEMA } }];
  }
  if (tool.type !== "function") throw unsupported(field, `${String(tool.type)} is a built-in Responses tool with no Chat Completions equivalent`);
  if (typeof tool.name !== "string") throw invalid(`${field}.name`, "expected a tool name");
  const fn: Record<string, unknown> = { name: tool.name, parameters: tool.parameters ?? { type: "object", properties: {} } };
  if (typeof tool.description === "string") fn.description = tool.description;
  if (typeof tool.strict === "boolean") fn.strict = tool.strict;
  return [{ type: "function", function: fn }];
}

/** `text.format` -> response_format; `text.verbosity` -> verbosity (both exist in Chat Completions). */
function textConfig(body: Record<string, unknown>, text: Record<string, unknown> | null): void {
  if (isSet(text?.verbosity)) body.verbosity = text?.verbosity;
  const format = asRecord(text?.format);
  switch (format?.type) {
    case undefined:
    case "text":
      return;
    case "json_object":
      body.response_format = { type: "json_object" };
      return;
    case "json_schema": {
      const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
      if (typeof format.description === "string") schema.description = format.description;
      if (typeof format.strict === "boolean") schema.strict = format.strict;
      body.response_format = { type: "json_schema", json_schema: schema };
      return;
    }
    default:
      throw invalid("text.format.type", "expected text, json_schema or json_object");
  }
}
