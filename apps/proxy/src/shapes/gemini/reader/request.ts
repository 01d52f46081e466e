import type { Field, Format, NeutralRequest, Part, ReasoningEffort, RequestReadContext, TextPart, Tool, ToolChoice, Turn } from "../../../core/neutral-request.ts";
import { itemId } from "../../../core/ids.ts";
import { invalid, isSet, list, unsupported } from "../../../core/fields.ts";
import { dropOrRefuse } from "../../../core/drop-or-refuse.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { jsonSchemaFromGoogle } from "../schema.ts";

/*
 * A Gemini generateContent body -> the neutral request (shared/design/neutral-core.md section 6).
 * The model and the method come from the URL (the parsed request), never the body.
 */

/** Fields of a generateContent body the reader knows; any other is refused naming it (nothing is lost silently). */
const KNOWN = new Set(["contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "cachedContent", "labels", "model"]);

const THINKING_LEVELS: Readonly<Record<string, ReasoningEffort>> = { MINIMAL: "minimal", LOW: "low", MEDIUM: "medium", HIGH: "high" };

const field = <T>(value: T, path: string): Field<T> => ({ value, path });

function texts(content: unknown, path: string): TextPart[] {
  const parts: TextPart[] = [];
  list(asRecord(content)?.parts).forEach((raw, index) => {
    const part = asRecord(raw);
    if (typeof part?.text === "string") parts.push({ type: "text", text: part.text, path: `${path}.parts[${index}].text` });
    else throw unsupported(`${path}.parts[${index}]`, "system instructions take text parts only");
  });
  return parts;
}

/** Reads the contents, keeping the name of every function call for the responses that answer it. */
class ContentsReader {
  /** Call ids in order per function name, not yet answered: a response without an id takes the first. */
  private readonly open = new Map<string, string[]>();

  turns(contents: unknown[]): Turn[] {
    return contents.map((raw, index) => {
      const path = `contents[${index}]`;
      const content = asRecord(raw) ?? {};
      const role = content.role === "model" ? "assistant" : "user";
      const parts: Part[] = [];
      list(content.parts).forEach((part, at) => this.part(asRecord(part) ?? {}, `${path}.parts[${at}]`, parts));
      return { role, parts, path };
    });
  }

  private part(part: Record<string, unknown>, path: string, parts: Part[]): void {
    const signature = typeof part.thoughtSignature === "string" ? { origin: "gemini" as const, value: part.thoughtSignature } : undefined;
    if (typeof part.text === "string") {
      if (part.thought === true) parts.push({ type: "reasoning", text: part.text, ...(signature ? { signature } : {}), path });
      // Gemini 3's empty text part that only carries the signature of the answer: kept for a Gemini writer.
      else if (part.text.length > 0 || signature) parts.push({ type: "text", text: part.text, ...(signature ? { signature } : {}), path });
      return;
    }
    const inline = asRecord(part.inlineData);
    if (inline) {
      if (typeof inline.mimeType !== "string" || typeof inline.data !== "string") throw invalid(`${path}.inlineData`, "expected mimeType and data (base64)");
      parts.push({ type: "file", mediaType: inline.mimeType, data: { base64: inline.data }, path });
      return;
    }
    const file = asRecord(part.fileData);
    if (file) {
      if (typeof file.fileUri !== "string") throw invalid(`${path}.fileData.fileUri`, "expected a string");
      parts.push({ type: "file", mediaType: typeof file.mimeType === "string" ? file.mimeType : "application/octet-stream", data: { fileId: file.fileUri, origin: "gemini" }, path });
      return;
    }
    const call = asRecord(part.functionCall);
    if (call) {
      if (typeof call.name !== "string" || call.name.length === 0) throw invalid(`${path}.functionCall.name`, "expected a function name");
      // Invented ids are random, never derived from the name (two calls of one tool must not collide).
      const callId = typeof call.id === "string" && call.id.length > 0 ? call.id : itemId("call_");
      const queue = this.open.get(call.name) ?? [];
      queue.push(callId);
      this.open.set(call.name, queue);
      parts.push({ type: "tool-call", callId, name: call.name, input: JSON.stringify(call.args ?? {}), ...(signature ? { signature } : {}), path });
      return;
    }
    const response = asRecord(part.functionResponse);
    if (response) {
      if (typeof response.name !== "string" || response.name.length === 0) throw invalid(`${path}.functionResponse.name`, "expected a function name");
      if (list(response.parts).length > 0) throw unsupported(`${path}.functionResponse.parts`, "media in a function response has no equivalent in this upstream's tool results");
      const queue = this.open.get(response.name);
      let callId: string;
      if (typeof response.id === "string" && response.id.length > 0) {
        callId = response.id;
        const at = queue?.indexOf(callId) ?? -1;
        if (at !== -1) queue!.splice(at, 1);
      } else {
        callId = queue?.shift() ?? itemId("call_");
      }
      const result = response.response ?? {};
      const error = asRecord(result)?.error !== undefined && Object.keys(asRecord(result) ?? {}).length === 1;
      parts.push({ type: "tool-result", callId, name: response.name, content: [{ type: "text", text: JSON.stringify(result), path: `${path}.functionResponse.response` }], ...(error ? { isError: true } : {}), path });
      return;
    }
    if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) throw unsupported(path, "code execution parts follow Gemini's code-execution tool, which this upstream does not run");
    throw unsupported(path, "this part has no equivalent in the upstream's shape");
  }
}

function tools(body: Record<string, unknown>, context: RequestReadContext): Tool[] {
  const out: Tool[] = [];
  list(body.tools).forEach((raw, index) => {
    const tool = asRecord(raw) ?? {};
    const path = `tools[${index}]`;
    for (const name of Object.keys(tool)) {
      if (name === "functionDeclarations") {
        list(tool.functionDeclarations).forEach((rawFn, at) => {
          const fn = asRecord(rawFn) ?? {};
          const fnPath = `${path}.functionDeclarations[${at}]`;
          if (typeof fn.name !== "string" || fn.name.length === 0) throw invalid(`${fnPath}.name`, "expected a function name");
          const schema = asRecord(fn.parametersJsonSchema) ?? (fn.parameters !== undefined ? jsonSchemaFromGoogle(fn.parameters) : null) ?? { type: "object", properties: {} };
          out.push({ type: "function", name: fn.name, ...(typeof fn.description === "string" ? { description: fn.description } : {}), parameters: schema, path: fnPath });
        });
      } else if (name === "googleSearch" || name === "googleSearchRetrieval") {
        if (dropOrRefuse(context, "web-search-tool", `${path}.${name}`)) out.push({ type: "hosted", kind: "web_search", raw: asRecord(tool[name]) ?? {}, path: `${path}.${name}` });
      } else {
        throw unsupported(`${path}.${name}`, "this Gemini tool runs only on Google's side");
      }
    }
  });
  return out;
}

function toolChoice(body: Record<string, unknown>, context: RequestReadContext): Field<ToolChoice> | undefined {
  const config = asRecord(asRecord(body.toolConfig)?.functionCallingConfig);
  if (!config || !isSet(config.mode)) return undefined;
  const path = "toolConfig.functionCallingConfig";
  const names = list(config.allowedFunctionNames).filter((name): name is string => typeof name === "string");
  switch (config.mode) {
    case "AUTO":
    case "MODE_UNSPECIFIED":
      return field({ type: "auto" }, `${path}.mode`);
    case "VALIDATED":
      context.drops.drop(`${path}.mode`, "VALIDATED has no equivalent in this upstream's shape: AUTO is sent");
      return field({ type: "auto" }, `${path}.mode`);
    case "NONE":
      return field({ type: "none" }, `${path}.mode`);
    case "ANY":
      if (names.length === 1) return field({ type: "function", name: names[0]! }, `${path}.allowedFunctionNames`);
      if (names.length > 1) throw unsupported(`${path}.allowedFunctionNames`, "a choice among several functions has no equivalent in this upstream's shape");
      return field({ type: "required" }, `${path}.mode`);
    default:
      throw invalid(`${path}.mode`, "expected AUTO, ANY, NONE or VALIDATED");
  }
}

function format(config: Record<string, unknown>): Field<Format> | undefined {
  const mime = config.responseMimeType;
  if (!isSet(mime) || mime === "text/plain") {
    if (isSet(config.responseSchema) || isSet(config.responseJsonSchema)) throw invalid("generationConfig.responseMimeType", "a response schema needs application/json");
    return undefined;
  }
  if (mime !== "application/json") throw unsupported("generationConfig.responseMimeType", `${String(mime)} has no equivalent in this upstream's shape`);
  const raw = isSet(config.responseJsonSchema) ? config.responseJsonSchema : config.responseSchema;
  const path = isSet(config.responseJsonSchema) ? "generationConfig.responseJsonSchema" : isSet(config.responseSchema) ? "generationConfig.responseSchema" : "generationConfig.responseMimeType";
  if (!isSet(raw)) return field({ type: "json" }, path);
  const schema = jsonSchemaFromGoogle(raw);
  if (!schema) throw invalid(path, "expected a schema object");
  return field({ type: "json_schema", name: "response", schema }, path);
}

function reasoning(config: Record<string, unknown>): NeutralRequest["reasoning"] {
  const thinking = asRecord(config.thinkingConfig);
  if (!thinking) return undefined;
  const path = "generationConfig.thinkingConfig";
  const out: NonNullable<NeutralRequest["reasoning"]> = { path };
  if (typeof thinking.includeThoughts === "boolean") out.visible = thinking.includeThoughts;
  if (isSet(thinking.thinkingLevel)) {
    const level = THINKING_LEVELS[String(thinking.thinkingLevel).toUpperCase()];
    if (!level) throw invalid(`${path}.thinkingLevel`, "expected MINIMAL, LOW, MEDIUM or HIGH");
    out.effort = level;
  } else if (typeof thinking.thinkingBudget === "number") {
    // -1: the model decides (its default); 0: off.
    if (thinking.thinkingBudget === 0) out.effort = "none";
    else if (thinking.thinkingBudget > 0) out.budgetTokens = thinking.thinkingBudget;
  }
  return out;
}

/** A generateContent body -> the neutral request. */
export function readRequest(body: Record<string, unknown>, context: RequestReadContext): NeutralRequest {
  for (const name of Object.keys(body)) if (!KNOWN.has(name)) throw unsupported(name, "this field has no equivalent in the upstream's shape");
  const config = asRecord(body.generationConfig) ?? {};
  const request: NeutralRequest = {
    model: "",
    stream: false,
    streamUsage: true,
    instructions: isSet(body.systemInstruction) ? texts(body.systemInstruction, "systemInstruction") : [],
    turns: new ContentsReader().turns(list(body.contents)),
    tools: tools(body, context),
    output: {},
    sampling: {},
    passengers: [],
  };
  const choice = toolChoice(body, context);
  if (choice) request.toolChoice = choice;
  const bound = context.outputBound ?? (typeof config.maxOutputTokens === "number" ? config.maxOutputTokens : undefined);
  if (bound !== undefined) request.output.bound = field(bound, "generationConfig.maxOutputTokens");
  const responseFormat = format(config);
  if (responseFormat) request.output.format = responseFormat;
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 0) request.output.stop = field(config.stopSequences.map(String), "generationConfig.stopSequences");
  if (typeof config.candidateCount === "number" && config.candidateCount > 1) {
    if (dropOrRefuse(context, "choices", "generationConfig.candidateCount")) request.output.choices = field(config.candidateCount, "generationConfig.candidateCount");
  }
  if (config.responseLogprobs === true && dropOrRefuse(context, "logprobs", "generationConfig.responseLogprobs")) {
    request.output.logprobs = field(typeof config.logprobs === "number" ? config.logprobs : 0, "generationConfig.responseLogprobs");
  }
  if (isSet(config.responseModalities) && list(config.responseModalities).some((modality) => modality !== "TEXT")) throw unsupported("generationConfig.responseModalities", "only text answers are served across shapes");
  for (const name of ["speechConfig", "imageConfig", "audioTimestamp", "enableAffectiveDialog"]) if (isSet(config[name])) throw unsupported(`generationConfig.${name}`, "this output has no equivalent in the upstream's shape");
  const thinking = reasoning(config);
  if (thinking) request.reasoning = thinking;
  const number = (name: string) => (typeof config[name] === "number" ? field(config[name] as number, `generationConfig.${name}`) : undefined);
  const temperature = number("temperature");
  if (temperature) {
    if (temperature.value <= 1 || dropOrRefuse(context, "temperature-above-1", temperature.path)) request.sampling.temperature = temperature;
  }
  const topP = number("topP");
  if (topP) request.sampling.topP = topP;
  const topK = number("topK");
  if (topK && dropOrRefuse(context, "top-k", topK.path)) request.sampling.topK = topK;
  const seed = number("seed");
  if (seed && dropOrRefuse(context, "seed", seed.path)) request.sampling.seed = seed;
  const presence = number("presencePenalty");
  if (presence && dropOrRefuse(context, "presence-penalty", presence.path)) request.sampling.presencePenalty = presence;
  const frequency = number("frequencyPenalty");
  if (frequency && dropOrRefuse(context, "frequency-penalty", frequency.path)) request.sampling.frequencyPenalty = frequency;
  // Passengers: tunes Google's own filters, Vertex bookkeeping; a server-side cache of Google's changes the answer.
  if (isSet(body.safetySettings)) context.drops.drop("safetySettings", "Google's safety filters have no equivalent in the upstream's shape");
  if (isSet(config.mediaResolution)) context.drops.drop("generationConfig.mediaResolution", "Google's media resolution has no equivalent in the upstream's shape");
  if (isSet(body.labels)) context.drops.drop("labels", "Vertex labels are bookkeeping the upstream does not keep");
  if (isSet(body.cachedContent)) throw unsupported("cachedContent", "a cached content lives on Google's side; the upstream cannot read it");
  return request;
}

/** The texts a countTokens body counts (contents, or a generateContentRequest's, with its instructions and tools). */
export function geminiCountText(body: Record<string, unknown>): string {
  const request = asRecord(body.generateContentRequest) ?? body;
  let text = "";
  const add = (content: unknown) => {
    for (const raw of list(asRecord(content)?.parts)) {
      const part = asRecord(raw);
      if (typeof part?.text === "string") text += `${part.text}\n`;
      if (part?.functionCall !== undefined) text += `${JSON.stringify(part.functionCall)}\n`;
      if (part?.functionResponse !== undefined) text += `${JSON.stringify(part.functionResponse)}\n`;
    }
  };
  add(request.systemInstruction);
  for (const content of list(request.contents)) add(content);
  if (request.tools !== undefined) text += JSON.stringify(request.tools);
  return text;
}
