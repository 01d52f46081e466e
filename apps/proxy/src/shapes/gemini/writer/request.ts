import { CUSTOM_TOOL_SCHEMA } from "../../../core/custom-tools.ts";
import { unsupported } from "../../../core/fields.ts";
import type { ModelCapabilities } from "@gateway/redis-store";
import type { Format, NeutralRequest, Part, ReasoningEffort, RequestWriteContext, Tool, ToolChoice, Turn } from "../../../core/neutral-request.ts";
import { effortFromBudget } from "../../../core/reasoning.ts";
import { asRecord, tryJson } from "../../../core/request-fields.ts";
import { systemReminder } from "../../../core/system-reminder.ts";

type Content = { role: "user" | "model"; parts: Record<string, unknown>[] };

/**
 * Google's documented stand-in for a function call's missing thought signature (Gemini 3 refuses
 * the first call of a model turn replayed without one: a call made by another provider has none).
 */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

/**
 * Thinking budgets by effort, for a model that takes `thinkingBudget` (Gemini 2.5). `none`: 0, off.
 */
const BUDGETS: Readonly<Record<ReasoningEffort, number>> = { none: 0, minimal: 512, low: 2048, medium: 8192, high: 24_576, xhigh: 32_768, max: 32_768 };

/** The least budget a model that cannot turn thinking off takes (Gemini 2.5 Pro: 128 to 32,768). */
const LEAST_BUDGET = 128;

/**
 * The neutral request -> a Gemini generateContent body (the model and the method go in the URL).
 * The reader already dropped or refused what Gemini does not take (`./accepts.ts`); this writes the
 * rest in Gemini's words: instructions as `systemInstruction`; turns as `user`/`model` contents,
 * consecutive turns of one role in one content (all function responses of a step together); a
 * mid-conversation system turn as a `<system-reminder>` user text; tool results matched to their
 * call by name; JSON Schema as `parametersJsonSchema`/`responseJsonSchema` (never converted to
 * Google's OpenAPI subset); the output bound as `maxOutputTokens`.
 */
export function writeRequest(request: NeutralRequest, context: RequestWriteContext): Record<string, unknown> {
  const contents: Content[] = [];
  const names = new Map<string, string>();
  const instructions = request.instructions.map((part) => ({ text: part.text }));
  let start = 0;
  // System turns before the conversation (chat's leading system messages) are its instructions.
  for (; start < request.turns.length && request.turns[start]!.role === "system"; start += 1) {
    for (const part of request.turns[start]!.parts) if (part.type === "text") instructions.push({ text: part.text });
  }
  for (let index = start; index < request.turns.length; index += 1) {
    const content = writeTurn(request.turns[index]!, names);
    if (content.parts.length === 0) continue;
    const last = contents.at(-1);
    if (last?.role === content.role) last.parts.push(...content.parts);
    else contents.push(content);
  }
  for (const content of contents) if (content.role === "model") placeSignatures(content.parts);
  const body: Record<string, unknown> = { contents };
  if (instructions.length > 0) body.systemInstruction = { parts: instructions };
  if (request.tools.length > 0) {
    body.tools = geminiTools(request.tools);
    if (request.toolChoice) body.toolConfig = { functionCallingConfig: functionCallingConfig(request.toolChoice.value) };
  }
  if (request.parallelToolCalls?.value === false) context.drops.drop(request.parallelToolCalls.path, "Gemini decides itself how many functions it calls at once");
  if (request.user) context.drops.drop(request.user.path, "Gemini-shape models take no end-user id");
  const config: Record<string, unknown> = {};
  if (context.outputBound !== undefined && context.outputBound > 0) config.maxOutputTokens = context.outputBound;
  const { sampling, output } = request;
  if (sampling.temperature) config.temperature = sampling.temperature.value;
  if (sampling.topP) config.topP = sampling.topP.value;
  if (sampling.topK) config.topK = sampling.topK.value;
  if (sampling.seed) config.seed = sampling.seed.value;
  if (sampling.presencePenalty) config.presencePenalty = sampling.presencePenalty.value;
  if (sampling.frequencyPenalty) config.frequencyPenalty = sampling.frequencyPenalty.value;
  if (output.stop) config.stopSequences = output.stop.value;
  if (output.choices && output.choices.value > 1) config.candidateCount = output.choices.value;
  if (output.logprobs) {
    config.responseLogprobs = true;
    if (output.logprobs.value > 0) config.logprobs = output.logprobs.value;
  }
  if (output.format) Object.assign(config, responseFormat(output.format.value));
  const thinking = thinkingConfig(request.reasoning, context.capabilities);
  if (thinking) config.thinkingConfig = thinking;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

function writeTurn(turn: Turn, names: Map<string, string>): Content {
  if (turn.role === "system") {
    // Gemini has no system turn inside the conversation: the model reads it as a reminder.
    const text = turn.parts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    return { role: "user", parts: text.length > 0 ? [{ text: systemReminder(text) }] : [] };
  }
  const role = turn.role === "assistant" ? "model" : "user";
  const parts: Record<string, unknown>[] = [];
  for (const part of turn.parts) {
    const written = writePart(part, names);
    if (written !== null) parts.push(written);
  }
  return { role, parts };
}

/**
 * Puts each of Gemini's signatures back on the part Gemini gave it with. A client of another shape
 * holds a function call's or an answer's signature in a reasoning block (the readers make one: an
 * Anthropic thinking block, a Responses reasoning item), which comes back here as a signed thought
 * part: its signature goes on the function call right after it, or, for an empty one, on the text
 * right before it (Gemini 3 signs a text answer's end), else it stays an empty signed text part as
 * Gemini sent it. The model content's first function call, still unsigned (a call another provider
 * made), gets Google's skip signature: Gemini 3 refuses the first call of a turn without one.
 */
function placeSignatures(parts: Record<string, unknown>[]): void {
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index]!;
    if (part.thought !== true || part.thoughtSignature === undefined) continue;
    const next = parts[index + 1];
    const previous = parts[index - 1];
    let home: Record<string, unknown> | undefined;
    if (next?.functionCall !== undefined && next.thoughtSignature === undefined) home = next;
    else if (part.text === "" && typeof previous?.text === "string" && previous.thought !== true && previous.thoughtSignature === undefined) home = previous;
    if (home) {
      home.thoughtSignature = part.thoughtSignature;
      delete part.thoughtSignature;
    }
    if (part.text !== "") continue;
    if (home) parts.splice(index--, 1);
    else delete part.thought;
  }
  const first = parts.find((part) => part.functionCall !== undefined);
  if (first && first.thoughtSignature === undefined) first.thoughtSignature = SKIP_SIGNATURE;
}

function writePart(part: Part, names: Map<string, string>): Record<string, unknown> | null {
  switch (part.type) {
    case "text": {
      const signature = part.signature?.origin === "gemini" ? part.signature.value : undefined;
      if (part.text.length === 0 && signature === undefined) return null;
      return signature === undefined ? { text: part.text } : { text: part.text, thoughtSignature: signature };
    }
    case "reasoning":
      // Only Gemini's own thoughts go back, with their signature (the reader dropped other origins).
      if (part.signature?.origin !== "gemini") return null;
      if (part.signature.value.length === 0) return part.text.length > 0 ? { text: part.text, thought: true } : null;
      return { text: part.text, thought: true, thoughtSignature: part.signature.value };
    case "file":
      return filePart(part);
    case "tool-call": {
      names.set(part.callId, part.name);
      const args = asRecord(tryJson(part.input)) ?? {};
      const signature = part.signature?.origin === "gemini" ? part.signature.value : undefined;
      return { functionCall: { id: part.callId, name: part.name, args }, ...(signature !== undefined ? { thoughtSignature: signature } : {}) };
    }
    case "tool-result": {
      const name = part.name.length > 0 ? part.name : (names.get(part.callId) ?? "");
      if (name.length === 0) throw unsupported(part.path, "a tool result must answer a call made earlier in the conversation (Gemini matches results by function name)");
      return { functionResponse: { id: part.callId, name, response: toolResponse(part) } };
    }
    default: {
      const never: never = part;
      return never;
    }
  }
}

/** A tool result's content as the `response` object Gemini takes: a JSON object as is, anything else under `output` (`error` when it failed). */
function toolResponse(part: Extract<Part, { type: "tool-result" }>): Record<string, unknown> {
  let text = "";
  for (const inner of part.content) {
    if (inner.type === "text") text += inner.text;
    else throw unsupported(inner.path, `${inner.type === "file" ? "image" : inner.type} parts in a tool result have no Gemini equivalent here`);
  }
  const parsed = asRecord(tryJson(text));
  if (parsed && !part.isError) return parsed;
  return part.isError ? { error: parsed ?? text } : { output: text };
}

function filePart(part: Extract<Part, { type: "file" }>): Record<string, unknown> {
  const data = part.data;
  if ("base64" in data) return { inlineData: { mimeType: part.mediaType, data: data.base64 } };
  if ("fileId" in data && data.origin === "gemini") return { fileData: { mimeType: part.mediaType, fileUri: data.fileId } };
  if ("fileId" in data) throw unsupported(part.path, "a file uploaded to another provider cannot be read by a Gemini-shape model");
  // Gemini fetches only Google-hosted files itself, and the gateway does not download for the client.
  throw unsupported(part.path, "Gemini does not fetch image URLs: send the image inline (a base64 data URL)");
}

function geminiTools(tools: Tool[]): Record<string, unknown>[] {
  const declarations: Record<string, unknown>[] = [];
  const out: Record<string, unknown>[] = [];
  for (const tool of tools) {
    switch (tool.type) {
      case "function":
        declarations.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), parametersJsonSchema: tool.parameters });
        break;
      case "freeform":
        declarations.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), parametersJsonSchema: CUSTOM_TOOL_SCHEMA });
        break;
      case "hosted":
        if (tool.kind !== "web_search") throw unsupported(tool.path, `the ${tool.kind} tool has no Gemini equivalent`);
        out.push({ googleSearch: {} });
        break;
      default: {
        const never: never = tool;
        return never;
      }
    }
  }
  return declarations.length > 0 ? [{ functionDeclarations: declarations }, ...out] : out;
}

function functionCallingConfig(choice: ToolChoice): Record<string, unknown> {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "none":
      return { mode: "NONE" };
    case "required":
      return { mode: "ANY" };
    case "function":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
    default: {
      const never: never = choice;
      return never;
    }
  }
}

function responseFormat(format: Format): Record<string, unknown> {
  switch (format.type) {
    case "text":
      return {};
    case "json":
      return { responseMimeType: "application/json" };
    case "json_schema":
      return { responseMimeType: "application/json", responseJsonSchema: format.schema };
    default: {
      const never: never = format;
      return never;
    }
  }
}

/**
 * The reasoning asked for as the one field of `thinkingConfig` the model takes (its capabilities;
 * Google refuses `thinkingLevel` on Gemini 2.5 and both fields at once): `thinkingLevel` from the
 * effort, or from a budget by the one nearest-level rule (`effortFromBudget`); else `thinkingBudget`
 * from the budget, or from the effort (`BUDGETS`). Off (effort `none`, budget 0) is MINIMAL or 0
 * where thinking can be turned off, else the least the model takes (LOW, `LEAST_BUDGET`). Without
 * capabilities (a caller that knows none): a budget, as every Gemini 2.5 and 3 model takes one.
 */
function thinkingConfig(reasoning: NeutralRequest["reasoning"], capabilities: ModelCapabilities | undefined): Record<string, unknown> | null {
  if (!reasoning) return null;
  const canDisable = capabilities?.canDisableThinking ?? true;
  const { budgetTokens, effort } = reasoning;
  const off = budgetTokens === 0 || (budgetTokens === undefined && effort === "none");
  const config: Record<string, unknown> = {};
  if (capabilities?.thinkingStyle === "level") {
    const level = off ? "none" : budgetTokens !== undefined ? effortFromBudget(budgetTokens) : effort;
    if (level !== undefined) config.thinkingLevel = thinkingLevel(level, canDisable);
  } else {
    const budget = budgetTokens ?? (effort !== undefined ? BUDGETS[effort] : undefined);
    if (budget !== undefined) config.thinkingBudget = budget === 0 && !canDisable ? LEAST_BUDGET : budget;
  }
  // A client that asked for reasoning sees it, unless it said otherwise; none when it asked for none
  // (a model that thinks anyway keeps its few thoughts to itself).
  if (!off) config.includeThoughts = reasoning.visible ?? true;
  return config;
}

/** Gemini 3's levels: MINIMAL (as good as off) only where the model takes it, else LOW, the least every Gemini 3 takes. */
function thinkingLevel(effort: ReasoningEffort, canDisable: boolean): string {
  switch (effort) {
    case "none":
    case "minimal":
      return canDisable ? "MINIMAL" : "LOW";
    case "low":
      return "LOW";
    case "medium":
      return "MEDIUM";
    case "high":
    case "xhigh":
    case "max":
      return "HIGH";
    default: {
      const never: never = effort;
      return never;
    }
  }
}
