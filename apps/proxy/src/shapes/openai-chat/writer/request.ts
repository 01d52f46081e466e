import { CUSTOM_TOOL_SCHEMA } from "../../../core/custom-tools.ts";
import { invalid, unsupported } from "../../../core/fields.ts";
import { reasoningLevel } from "../../../core/reasoning.ts";
import { urlOfFile } from "../../../core/media.ts";
import type { Format, NeutralRequest, Part, RequestWriteContext, TextPart, Tool, ToolChoice, Turn } from "../../../core/neutral-request.ts";

type ChatMessage = Record<string, unknown>;

/**
 * The neutral request -> a Chat Completions request (model still the public name). The reader
 * already dropped or refused what Chat Completions does not take (`./accepts.ts`); this writes the
 * rest in Chat Completions' words. The output bound is sent as `max_completion_tokens`
 * (`max_tokens` is deprecated there and refused by reasoning models), never two limits.
 */
export function writeRequest(request: NeutralRequest, context: RequestWriteContext): Record<string, unknown> {
  const conversation = new ChatConversation();
  if (request.instructions.length > 0) {
    conversation.push({ role: "system", content: request.instructionsPlain ? request.instructions[0]!.text : request.instructions.map(textPart) });
  }
  for (const turn of request.turns) writeTurn(conversation, turn);
  const body: Record<string, unknown> = { model: request.model, messages: conversation.finish() };
  if (request.layout !== "bound-after-stream") body.max_completion_tokens = context.outputBound;
  if (request.stream) body.stream = true;
  if (request.output.stop) body.stop = request.output.stop.value;
  if (request.layout === "bound-after-stream" && context.outputBound !== undefined) body.max_completion_tokens = context.outputBound;
  if (request.sampling.temperature) body.temperature = request.sampling.temperature.value;
  if (request.sampling.topP) body.top_p = request.sampling.topP.value;
  if (request.user) body.user = request.user.value;
  if (request.safetyIdentifier) body.safety_identifier = request.safetyIdentifier.value;
  if (request.promptCache?.key) body.prompt_cache_key = request.promptCache.key.value;
  if (request.promptCache?.retention) body.prompt_cache_retention = request.promptCache.retention.value;
  if (request.serviceTier) body.service_tier = request.serviceTier.value;
  if (request.tools.length > 0) {
    body.tools = request.tools.map(chatTool);
    if (request.toolChoice) body.tool_choice = chatToolChoice(request.toolChoice.value);
    if (request.parallelToolCalls) body.parallel_tool_calls = request.parallelToolCalls.value;
  }
  if (request.output.verbosity) body.verbosity = request.output.verbosity.value;
  if (request.output.format) {
    const format = responseFormat(request.output.format.value);
    if (format) body.response_format = format;
  }
  const effort = reasoningLevel(request.reasoning);
  if (effort) body.reasoning_effort = effort;
  return body;
}

function textPart(part: TextPart): { type: "text"; text: string } {
  return { type: "text", text: part.text };
}

/** Text-only content (system, tool results): text parts; anything else has no form there. */
function textParts(parts: Part[]): { type: "text"; text: string }[] {
  return parts.map((part) => {
    if (part.type !== "text") throw unsupported(partPath(part), `${part.type === "file" ? "image" : part.type} parts have no Chat Completions equivalent here`);
    return textPart(part);
  });
}

/** A part's own path (an image's path names its URL field: the part is the one before it). */
function partPath(part: Part): string {
  return part.type === "file" ? part.path.replace(/\.image_url(\.url)?$/, "") : part.path;
}

function writeTurn(conversation: ChatConversation, turn: Turn): void {
  switch (turn.role) {
    case "system":
      // A system (developer) message stays one in its place: Chat Completions takes them anywhere.
      conversation.push({ role: turn.developer ? "developer" : "system", content: turn.plain ? plainText(turn.parts) : textParts(turn.parts) });
      return;
    case "user":
      writeUser(conversation, turn);
      return;
    case "assistant":
      writeAssistant(conversation, turn);
      return;
    default: {
      const never: never = turn.role;
      return never;
    }
  }
}

function plainText(parts: Part[]): string {
  return parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/**
 * A user turn. Its tool results become `tool` messages, in order and first, since Chat Completions
 * wants them right after the assistant's tool_calls; the rest is one user message.
 */
function writeUser(conversation: ChatConversation, turn: Turn): void {
  if (turn.plain) {
    conversation.push({ role: "user", content: plainText(turn.parts) });
    return;
  }
  const content: Record<string, unknown>[] = [];
  let results = 0;
  for (const part of turn.parts) {
    switch (part.type) {
      case "tool-result":
        results += 1;
        conversation.toolResult({ role: "tool", tool_call_id: part.callId, content: part.plain ? plainText(part.content) : textParts(part.content) }, part.callId);
        break;
      case "text":
        if (part.refusal) throw invalid(part.path, "refusal parts belong to assistant messages");
        content.push(textPart(part));
        break;
      case "file": {
        const url = urlOfFile(part);
        if (url === null) throw unsupported(part.path, "file ids have no Chat Completions equivalent");
        content.push({ type: "image_url", image_url: part.detail === undefined ? { url } : { url, detail: part.detail } });
        break;
      }
      default:
        throw invalid(part.path, `${part.type} parts belong to assistant messages`);
    }
  }
  if (content.length > 0 || results === 0) conversation.push({ role: "user", content });
}

/**
 * An assistant turn: text parts join into `content` (their concatenation is exactly what the model
 * wrote), tool calls become `tool_calls` (a turn of calls only, right after an assistant message,
 * joins that message: one assistant turn); a refusal alone is `refusal`.
 */
function writeAssistant(conversation: ChatConversation, turn: Turn): void {
  if (turn.plain) {
    conversation.push({ role: "assistant", content: plainText(turn.parts) });
    return;
  }
  let text = "";
  let refusal = "";
  const calls: Record<string, unknown>[] = [];
  for (const part of turn.parts) {
    if (part.type === "text") {
      if (part.refusal) refusal += part.text;
      else text += part.text;
    } else if (part.type === "tool-call") calls.push({ id: part.callId, type: "function", function: { name: part.name, arguments: part.input } });
    else if (part.type === "file") throw unsupported(partPath(part), "assistant messages carry no images");
  }
  const callIds = calls.map((call) => call.id as string);
  if (calls.length > 0 && calls.length === turn.parts.length && conversation.joinCalls(calls, callIds)) return;
  const message: ChatMessage =
    refusal.length > 0 && text.length === 0 ? { role: "assistant", content: null, refusal } : { role: "assistant", content: text.length === 0 && calls.length > 0 ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  conversation.push(message, callIds);
}

/**
 * The chat messages of a conversation, in order, except a system/developer message said between an
 * assistant's tool calls and their `tool` messages: Chat Completions wants those right after the
 * calls, so it waits until the last owed result is in (or the conversation moves on).
 */
class ChatConversation {
  private readonly messages: ChatMessage[] = [];
  /** Call ids of the last assistant message that no tool message has answered yet. */
  private readonly owed = new Set<string>();
  private waiting: ChatMessage[] = [];

  /** Any message but a tool result: what waited is said first. `calls`: the ids an assistant message now owes results for. */
  push(message: ChatMessage, calls: readonly string[] = []): void {
    if (message.role === "system" || message.role === "developer") {
      this.waiting.push(message);
      if (this.owed.size === 0) this.flush();
      return;
    }
    this.flush();
    this.messages.push(message);
    for (const id of calls) this.owed.add(id);
  }

  /** Calls that continue the assistant message just said; false when the last message is not one. */
  joinCalls(calls: Record<string, unknown>[], ids: readonly string[]): boolean {
    const last = this.messages.at(-1);
    if (last?.role !== "assistant") return false;
    last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), ...calls];
    for (const id of ids) this.owed.add(id);
    return true;
  }

  toolResult(message: ChatMessage, callId: string): void {
    this.messages.push(message);
    this.owed.delete(callId);
    if (this.owed.size === 0) this.flush();
  }

  finish(): ChatMessage[] {
    this.flush();
    return this.messages;
  }

  private flush(): void {
    this.owed.clear();
    if (this.waiting.length === 0) return;
    this.messages.push(...this.waiting);
    this.waiting = [];
  }
}

/** A function tool as is; a freeform tool as a function with one string argument (`core/custom-tools.ts`). */
function chatTool(tool: Tool): Record<string, unknown> {
  switch (tool.type) {
    case "function": {
      const fn: Record<string, unknown> = { name: tool.name, parameters: tool.parameters };
      if (tool.description !== undefined) fn.description = tool.description;
      if (tool.strict !== undefined) fn.strict = tool.strict;
      return { type: "function", function: fn };
    }
    case "freeform":
      return { type: "function", function: { ...(tool.description === undefined ? { name: tool.name } : { name: tool.name, description: tool.description }), parameters: CUSTOM_TOOL_SCHEMA } };
    case "hosted":
      throw unsupported(tool.path, `${tool.kind} is a built-in tool with no Chat Completions equivalent`);
    default: {
      const never: never = tool;
      return never;
    }
  }
}

export function chatToolChoice(choice: ToolChoice): unknown {
  switch (choice.type) {
    case "auto":
    case "none":
    case "required":
      return choice.type;
    case "function":
      return { type: "function", function: { name: choice.name } };
    default: {
      const never: never = choice;
      return never;
    }
  }
}

function responseFormat(format: Format): Record<string, unknown> | null {
  switch (format.type) {
    case "text":
      return null;
    case "json":
      return { type: "json_object" };
    case "json_schema": {
      const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
      if (format.description !== undefined) schema.description = format.description;
      if (format.strict !== undefined) schema.strict = format.strict;
      return { type: "json_schema", json_schema: schema };
    }
    default: {
      const never: never = format;
      return never;
    }
  }
}
