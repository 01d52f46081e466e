import { CUSTOM_TOOL_SCHEMA } from "../../../core/custom-tools.ts";
import { unsupported } from "../../../core/fields.ts";
import type { NeutralRequest, Part, RequestWriteContext, Tool, ToolChoice, Turn } from "../../../core/neutral-request.ts";
import { asRecord, tryJson } from "../../../core/request-fields.ts";
import { systemReminder } from "../../../core/system-reminder.ts";

type Message = { role: "user" | "assistant"; content: Record<string, unknown>[] };

/** The image formats Converse takes (`image.format`), by media type. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

/**
 * The neutral request -> a Bedrock Converse body (the model goes in the URL:
 * `/model/{modelId}/converse`; shared/notes/wire-gemini-bedrock-vertex-azure.md section 2.1). The
 * reader already dropped or refused what Converse does not take (`./accepts.ts`); this writes the
 * rest: instructions as `system[{text}]`; turns as `user`/`assistant` messages, consecutive turns of
 * one role in one message (Converse wants them alternating); a mid-conversation system turn as a
 * `<system-reminder>` user text; each content block one tagged member (`text`, `image`, `toolUse`,
 * `toolResult`); the output bound, temperature, topP and stop sequences as `inferenceConfig`;
 * tools as `toolConfig.tools[].toolSpec` with their JSON Schema under `inputSchema.json`. Reasoning
 * settings go in `additionalModelRequestFields` for Claude models only (the one documented field
 * there); another model's are dropped, listed.
 */
export function writeRequest(request: NeutralRequest, context: RequestWriteContext): Record<string, unknown> {
  const messages: Message[] = [];
  const system = request.instructions.filter((part) => part.text.length > 0).map((part) => ({ text: part.text }));
  let start = 0;
  for (; start < request.turns.length && request.turns[start]!.role === "system"; start += 1) {
    for (const part of request.turns[start]!.parts) if (part.type === "text" && part.text.length > 0) system.push({ text: part.text });
  }
  for (let index = start; index < request.turns.length; index += 1) {
    const message = writeTurn(request.turns[index]!);
    if (message.content.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === message.role) last.content.push(...message.content);
    else messages.push(message);
  }
  const body: Record<string, unknown> = { messages };
  if (system.length > 0) body.system = system;
  const inference: Record<string, unknown> = {};
  if (context.outputBound !== undefined && context.outputBound > 0) inference.maxTokens = context.outputBound;
  if (request.sampling.temperature) inference.temperature = request.sampling.temperature.value;
  if (request.sampling.topP) inference.topP = request.sampling.topP.value;
  if (request.output.stop && request.output.stop.value.length > 0) inference.stopSequences = request.output.stop.value;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  if (request.output.format && request.output.format.value.type !== "text") throw unsupported(request.output.format.path, "Bedrock Converse has no response format; describe the JSON in the prompt or use a tool");
  if (request.tools.length > 0) body.toolConfig = toolConfig(request, context);
  if (request.parallelToolCalls?.value === false) context.drops.drop(request.parallelToolCalls.path, "Bedrock Converse decides itself how many tools it calls at once");
  if (request.user) context.drops.drop(request.user.path, "Bedrock Converse takes no end-user id");
  const extra = additionalFields(request, context);
  if (extra) body.additionalModelRequestFields = extra;
  return body;
}

function writeTurn(turn: Turn): Message {
  if (turn.role === "system") {
    const text = turn.parts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    return { role: "user", content: text.length > 0 ? [{ text: systemReminder(text) }] : [] };
  }
  const content: Record<string, unknown>[] = [];
  for (const part of turn.parts) {
    const block = writePart(part);
    if (block !== null) content.push(block);
  }
  return { role: turn.role, content };
}

function writePart(part: Part): Record<string, unknown> | null {
  switch (part.type) {
    case "text":
      // Converse refuses an empty text block.
      return part.text.length > 0 ? { text: part.text } : null;
    case "reasoning":
      // Only signed reasoning can go back, and no other provider's signature verifies here (the reader dropped it, listed).
      return null;
    case "file":
      return imageBlock(part);
    case "tool-call":
      return { toolUse: { toolUseId: part.callId, name: part.name, input: asRecord(tryJson(part.input)) ?? {} } };
    case "tool-result":
      return { toolResult: { toolUseId: part.callId, content: toolResultContent(part), status: part.isError ? "error" : "success" } };
    default: {
      const never: never = part;
      return never;
    }
  }
}

function imageBlock(part: Extract<Part, { type: "file" }>): Record<string, unknown> {
  const format = IMAGE_FORMATS[part.mediaType.toLowerCase()];
  if (format === undefined) throw unsupported(part.path, `Bedrock Converse takes png, jpeg, gif and webp images here, not ${part.mediaType}`);
  if (!("base64" in part.data)) throw unsupported(part.path, "Bedrock Converse does not fetch images: send the image inline (a base64 data URL)");
  return { image: { format, source: { bytes: part.data.base64 } } };
}

function toolResultContent(part: Extract<Part, { type: "tool-result" }>): Record<string, unknown>[] {
  const content: Record<string, unknown>[] = [];
  for (const inner of part.content) {
    if (inner.type === "text") {
      if (inner.text.length > 0) content.push({ text: inner.text });
    } else if (inner.type === "file") {
      content.push(imageBlock(inner));
    } else {
      throw unsupported(inner.path, `${inner.type} parts in a tool result have no Bedrock Converse equivalent`);
    }
  }
  // Converse wants at least one content block in a result.
  return content.length > 0 ? content : [{ text: "" }];
}

function toolConfig(request: NeutralRequest, context: RequestWriteContext): Record<string, unknown> {
  const tools = request.tools.map(toolSpec);
  const config: Record<string, unknown> = { tools };
  const choice = request.toolChoice;
  if (choice) {
    const written = converseChoice(choice.value);
    if (written === null) context.drops.drop(choice.path, "Bedrock Converse has no way to forbid tool calls while tools are given; the model may call one");
    else config.toolChoice = written;
  }
  return config;
}

function toolSpec(tool: Tool): Record<string, unknown> {
  switch (tool.type) {
    case "function":
      return { toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json: tool.parameters } } };
    case "freeform":
      return { toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json: CUSTOM_TOOL_SCHEMA } } };
    case "hosted":
      throw unsupported(tool.path, `the ${tool.kind} tool has no Bedrock Converse equivalent`);
    default: {
      const never: never = tool;
      return never;
    }
  }
}

/** Converse's tool choice; null for `none`, which it cannot say. */
function converseChoice(choice: ToolChoice): Record<string, unknown> | null {
  switch (choice.type) {
    case "auto":
      return { auto: {} };
    case "required":
      return { any: {} };
    case "function":
      return { tool: { name: choice.name } };
    case "none":
      return null;
    default: {
      const never: never = choice;
      return never;
    }
  }
}

/** Thinking budgets by effort, for a client that speaks in levels (Claude takes budgets of 1024 and up). */
const BUDGETS: Readonly<Record<string, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 24_576, xhigh: 32_768, max: 32_768 };

/**
 * `additionalModelRequestFields`, only where Converse has no field: a Claude model's thinking
 * (`{"thinking":{"type":"enabled","budget_tokens"}}`). Another model's reasoning settings have no
 * one documented form: dropped, listed.
 */
function additionalFields(request: NeutralRequest, context: RequestWriteContext): Record<string, unknown> | null {
  const reasoning = request.reasoning;
  if (!reasoning) return null;
  const budget = reasoning.budgetTokens ?? (reasoning.effort === undefined || reasoning.effort === "none" ? undefined : BUDGETS[reasoning.effort]);
  if (budget === undefined || budget === 0) return null;
  if (!/(^|[.:/])anthropic\./.test(request.model)) {
    context.drops.drop(reasoning.path, "reasoning settings are sent to Claude models on Bedrock Converse only");
    return null;
  }
  return { thinking: { type: "enabled", budget_tokens: budget } };
}
