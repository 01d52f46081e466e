import { asRecord } from "../../../core/request-fields.ts";
import { withoutBookkeeping } from "../../../core/bookkeeping.ts";
import { dropOrRefuse, dropped, refused } from "../../../core/drop-or-refuse.ts";
import { invalid, isSet, list, refuseUnhandledFields, unsupported } from "../../../core/fields.ts";
import { fileFromUrl } from "../../../core/media.ts";
import { decodeOpaque } from "../../../core/opaque.ts";
import { approximateLocation, emptyRequest, type Format, type NeutralRequest, type Part, type ReasoningEffort, type RequestReadContext, type TextPart, type Tool, type ToolChoice, type Turn } from "../../../core/neutral-request.ts";

const HANDLED = new Set([
  "model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "stop", "temperature", "top_p",
  "user", "safety_identifier", "tools", "tool_choice", "parallel_tool_calls", "reasoning_effort", "response_format",
  // Read by chatOnlyFields: taken, dropped or refused by the target, unless at values that change nothing.
  "n", "logprobs", "top_logprobs", "frequency_penalty", "presence_penalty", "logit_bias", "store", "metadata", "seed", "service_tier", "modalities",
  "audio", "prediction", "verbosity", "web_search_options", "functions", "function_call", "prompt_cache_key", "prompt_cache_retention",
  "prompt_cache_options", "moderation",
]);

/**
 * A Chat Completions request -> the neutral request, for an upstream of another shape. What the
 * target writer does not take (its `accepts` table) is dropped or refused here, in reading order.
 */
export function readRequest(body: Record<string, unknown>, context: RequestReadContext): NeutralRequest {
  // Unread bookkeeping fields (client_metadata, x-*) are dropped, listed, before the fields are checked.
  const chat = withoutBookkeeping(body, context.drops);
  refuseUnhandledFields(chat, HANDLED, context.accepts.upstream);
  const neutral = emptyRequest(chat.model, chat.stream === true);
  neutral.streamUsage = asRecord(chat.stream_options)?.include_usage === true;
  chatOnlyFields(chat, neutral, context);
  readMessages(list(chat.messages), neutral, context);
  if (context.outputBound !== undefined) neutral.output.bound = { value: context.outputBound, path: isSet(chat.max_completion_tokens) ? "max_completion_tokens" : "max_tokens" };
  const stop = stopSequences(chat.stop);
  if (stop.length > 0) neutral.output.stop = { value: stop, path: "stop" };
  if (isSet(chat.temperature)) {
    if (typeof chat.temperature === "number" && chat.temperature > 1 && !dropOrRefuse(context, "temperature-above-1", "temperature")) {
      // dropped: the model's default applies
    } else neutral.sampling.temperature = { value: chat.temperature as number, path: "temperature" };
  }
  if (isSet(chat.top_p)) neutral.sampling.topP = { value: chat.top_p as number, path: "top_p" };
  if (typeof chat.user === "string") neutral.user = { value: chat.user, path: "user" };
  if (typeof chat.safety_identifier === "string") neutral.safetyIdentifier = { value: chat.safety_identifier, path: "safety_identifier" };
  if (chat.service_tier === "auto" || chat.service_tier === "default") neutral.serviceTier = { value: chat.service_tier, path: "service_tier" };
  readTools(chat, neutral, context);
  if (isSet(chat.reasoning_effort)) neutral.reasoning = { effort: chat.reasoning_effort as ReasoningEffort, path: "reasoning_effort" };
  const format = responseFormat(chat.response_format, context);
  if (format) neutral.output.format = { value: format, path: "response_format" };
  return neutral;
}

/**
 * Chat Completions fields the target may not take. Each is taken at the value that changes nothing
 * (n = 1, logprobs false, penalties 0, ...). At any other value the target's table decides: a field
 * that only tunes the answer is dropped (listed), one whose loss changes what the client gets back
 * (several choices, log probabilities, audio, a tool it cannot call) is a 400 naming it.
 */
function chatOnlyFields(chat: Record<string, unknown>, neutral: NeutralRequest, context: RequestReadContext): void {
  if (isSet(chat.n) && chat.n !== 1 && dropOrRefuse(context, "choices", "n")) neutral.output.choices = { value: chat.n as number, path: "n" };
  if (chat.logprobs === true) dropOrRefuse(context, "logprobs", "logprobs", refused("log probabilities cannot be served through another API"));
  if (isSet(chat.top_logprobs) && chat.top_logprobs !== 0 && dropOrRefuse(context, "logprobs", "top_logprobs")) neutral.output.logprobs = { value: chat.top_logprobs as number, path: "top_logprobs" };
  if (isSet(chat.audio)) dropOrRefuse(context, "audio-output", "audio", refused("audio answers cannot be served through another API"));
  if (isSet(chat.modalities) && !(Array.isArray(chat.modalities) && chat.modalities.every((modality) => modality === "text"))) {
    dropOrRefuse(context, "audio-output", "modalities", refused("audio answers cannot be served through another API"));
  }
  // Moderated completions come back with moderation results (or blocked): OpenAI's own service.
  if (isSet(chat.moderation)) dropOrRefuse(context, "moderation", "moderation", refused("moderation results need OpenAI's own API"));
  for (const field of ["functions", "function_call"] as const) {
    if (isSet(chat[field])) dropOrRefuse(context, "legacy-functions", field, refused("legacy function calling needs OpenAI's own API; use tools"));
  }
  if (isSet(chat.frequency_penalty) && chat.frequency_penalty !== 0 && dropOrRefuse(context, "frequency-penalty", "frequency_penalty")) {
    neutral.sampling.frequencyPenalty = { value: chat.frequency_penalty as number, path: "frequency_penalty" };
  }
  if (isSet(chat.presence_penalty) && chat.presence_penalty !== 0 && dropOrRefuse(context, "presence-penalty", "presence_penalty")) {
    neutral.sampling.presencePenalty = { value: chat.presence_penalty as number, path: "presence_penalty" };
  }
  if (Object.keys(asRecord(chat.logit_bias) ?? {}).length > 0) dropOrRefuse(context, "logit-bias", "logit_bias", dropped("the other side has no token bias"));
  if (isSet(chat.seed) && dropOrRefuse(context, "seed", "seed")) neutral.sampling.seed = { value: chat.seed as number, path: "seed" };
  if (isSet(chat.prediction)) dropOrRefuse(context, "prediction", "prediction", dropped("predicted outputs only speed up OpenAI models"));
  if (isSet(chat.verbosity) && dropOrRefuse(context, "verbosity", "verbosity")) neutral.output.verbosity = { value: chat.verbosity as string, path: "verbosity" };
  // store keeps the completion in OpenAI's dashboard; metadata is kept only with it.
  if (chat.store === true) dropOrRefuse(context, "store", "store", dropped("completions served through another API are not stored"));
  if (Object.keys(asRecord(chat.metadata) ?? {}).length > 0) dropOrRefuse(context, "metadata", "metadata", dropped("metadata is kept only with stored completions"));
  if (isSet(chat.service_tier) && chat.service_tier !== "auto" && chat.service_tier !== "default") {
    if (dropOrRefuse(context, "service-tier", "service_tier")) neutral.serviceTier = { value: chat.service_tier as string, path: "service_tier" };
  }
  // A target with one end-user id carries user when both are set.
  if (typeof chat.user === "string" && typeof chat.safety_identifier === "string" && chat.user !== chat.safety_identifier) dropOrRefuse(context, "second-user-id", "safety_identifier");
  // Prompt-cache routing hints steer OpenAI's automatic cache, never the answer.
  for (const field of ["prompt_cache_key", "prompt_cache_retention"] as const) {
    if (isSet(chat[field]) && dropOrRefuse(context, "prompt-cache-hint", field)) {
      neutral.promptCache = { ...neutral.promptCache, [field === "prompt_cache_key" ? "key" : "retention"]: { value: chat[field], path: field } };
    }
  }
  // Implicit or explicit breakpoints and their lifetime: how OpenAI caches, never what it answers.
  if (Object.keys(asRecord(chat.prompt_cache_options) ?? {}).length > 0) dropOrRefuse(context, "prompt-cache-options", "prompt_cache_options", dropped("the other side caches prompts its own way"));
}

/** `stop` is a string or an array; the neutral stop is always an array (new-api #7175). */
function stopSequences(value: unknown): string[] {
  if (!isSet(value)) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  throw invalid("stop", "expected a string or an array of strings");
}

/**
 * The conversation: system/developer messages become system turns (the writer decides which are
 * leading instructions and which are said mid-conversation); tool messages are tool results in a
 * user turn; assistant `thinking_blocks` (signed thinking this gateway returned) ride as reasoning.
 */
function readMessages(messages: unknown[], neutral: NeutralRequest, context: RequestReadContext): void {
  messages.forEach((raw, index) => {
    const path = `messages[${index}]`;
    const message = asRecord(raw);
    if (!message) throw invalid(path, "expected an object");
    if (isSet(message.name)) dropOrRefuse(context, "participant-name", `${path}.name`);
    switch (message.role) {
      case "system":
      case "developer": {
        const turn: Turn = { role: "system", parts: contentTexts(message.content, `${path}.content`), path };
        if (message.role === "developer") turn.developer = true;
        neutral.turns.push(turn);
        return;
      }
      case "user":
        neutral.turns.push(userTurn(message.content, path, context));
        return;
      case "assistant":
        neutral.turns.push({ role: "assistant", parts: assistantParts(message, path, context), path });
        return;
      case "tool":
        neutral.turns.push({ role: "user", parts: [toolResult(message, path)], path });
        return;
      case "function":
        return void dropOrRefuse(context, "legacy-functions", `${path}.role`, refused("legacy function messages need OpenAI's own API; use tool messages"));
      default:
        throw invalid(`${path}.role`, "expected system, developer, user, assistant or tool");
    }
  });
}

/** Text-only content (system, tool, assistant): a string or text parts (a refusal part is its text). */
function contentTexts(content: unknown, path: string): TextPart[] {
  if (typeof content === "string") return [{ type: "text", text: content, path }];
  return list(content).map((raw, index) => {
    const part = asRecord(raw);
    const field = `${path}[${index}]`;
    if (part?.type === "text" && typeof part.text === "string") return { type: "text", text: part.text, path: field };
    if (part?.type === "refusal" && typeof part.refusal === "string") return { type: "text", text: part.refusal, path: field };
    throw unsupported(field, `${String(part?.type)} parts are not accepted here`);
  });
}

function userTurn(content: unknown, path: string, context: RequestReadContext): Turn {
  const field = `${path}.content`;
  if (typeof content === "string") return { role: "user", parts: [{ type: "text", text: content, path: field }], plain: true, path };
  if (!Array.isArray(content)) throw invalid(field, "expected a string or an array of content parts");
  const parts = content.map((raw, index): Part => {
    const part = asRecord(raw);
    const partPath = `${field}[${index}]`;
    switch (part?.type) {
      case "text":
        if (typeof part.text !== "string") throw invalid(`${partPath}.text`, "expected a string");
        return { type: "text", text: part.text, path: partPath };
      case "image_url": {
        // `detail` picks OpenAI's resize policy; the image is the same.
        const image = asRecord(part.image_url);
        const detail = isSet(image?.detail) && image?.detail !== "auto" && dropOrRefuse(context, "image-detail", `${partPath}.image_url.detail`) ? String(image?.detail) : undefined;
        if (typeof image?.url !== "string" || image.url.length === 0) throw invalid(`${partPath}.image_url.url`, "expected an image URL");
        return fileFromUrl(image.url, `${partPath}.image_url.url`, detail);
      }
      case "input_audio":
      case "file":
        throw unsupported(partPath, `${part.type} parts have no ${context.accepts.name} equivalent`);
      default:
        throw invalid(`${partPath}.type`, "expected text or image_url");
    }
  });
  return { role: "user", parts, path };
}

function assistantParts(message: Record<string, unknown>, path: string, context: RequestReadContext): Part[] {
  if (isSet(message.function_call)) throw unsupported(`${path}.function_call`, `legacy function calls have no ${context.accepts.name} equivalent; use tool_calls`);
  if (isSet(message.audio)) throw unsupported(`${path}.audio`, `audio has no ${context.accepts.name} equivalent`);
  // Thinking blocks this gateway returned (`thinking_blocks`) go back first, signatures intact.
  const thinking = list(message.thinking_blocks).flatMap((raw, index): Part[] => {
    const block = asRecord(raw);
    const field = `${path}.thinking_blocks[${index}]`;
    if (block?.type !== "thinking" && block?.type !== "redacted_thinking") throw invalid(field, "expected a thinking block");
    // Tagged by who signed them (core/opaque.ts): only a target of that kind verifies them.
    const { origin, value, redacted } = decodeOpaque(String((block.type === "thinking" ? block.signature : block.data) ?? ""));
    if (context.accepts.origin !== origin && !dropOrRefuse(context, "foreign-reasoning", field)) return [];
    if (block.type === "thinking" && !redacted) return [{ type: "reasoning", text: String(block.thinking ?? ""), signature: { origin, value }, path: field }];
    return [{ type: "reasoning", text: "", redacted: { origin, value }, path: field }];
  });
  const texts = isSet(message.content) ? contentTexts(message.content, `${path}.content`) : [];
  if (typeof message.refusal === "string" && !isSet(message.content)) texts.push({ type: "text", text: message.refusal, path: `${path}.refusal` });
  const text: Part[] = [{ type: "text", text: texts.map((part) => part.text).join(""), path: `${path}.content` }];
  const calls = list(message.tool_calls).map((raw, index) => toolCall(raw, `${path}.tool_calls[${index}]`, context));
  return [...thinking, ...text, ...calls];
}

function toolCall(raw: unknown, field: string, context: RequestReadContext): Part {
  const call = asRecord(raw);
  const fn = asRecord(call?.function);
  if (call?.type !== undefined && call.type !== "function") throw unsupported(`${field}.type`, `${String(call.type)} tool calls have no ${context.accepts.name} equivalent`);
  if (typeof call?.id !== "string" || typeof fn?.name !== "string") throw invalid(field, "expected id and function.name");
  if (typeof fn.arguments !== "string") throw invalid(`${field}.function.arguments`, "expected a JSON object");
  // The writer parses the arguments once (an object, or the 400 naming `<path>.arguments`).
  return { type: "tool-call", callId: call.id, name: fn.name, input: fn.arguments, path: `${field}.function` };
}

function toolResult(message: Record<string, unknown>, path: string): Part {
  if (typeof message.tool_call_id !== "string") throw invalid(`${path}.tool_call_id`, "expected a string");
  const result = { type: "tool-result" as const, callId: message.tool_call_id, name: "", path };
  if (typeof message.content === "string") return { ...result, content: [{ type: "text", text: message.content, path: `${path}.content` }], plain: true };
  return { ...result, content: contentTexts(message.content, `${path}.content`) };
}

/** Function tools, the tool choice and parallel calls; `web_search_options` as a hosted web search after them. */
function readTools(chat: Record<string, unknown>, neutral: NeutralRequest, context: RequestReadContext): void {
  neutral.tools = list(chat.tools).map((raw, index) => functionTool(raw, `tools[${index}]`, context));
  const choice = isSet(chat.tool_choice) ? toolChoice(chat.tool_choice, context) : null;
  if (neutral.tools.length === 0) {
    // Without tools, "auto" and "none" change nothing; a forced choice the upstream must refuse.
    if (choice?.type === "required" || choice?.type === "function") throw invalid("tool_choice", "a tool choice needs tools");
    if (typeof chat.parallel_tool_calls === "boolean") context.drops.drop("parallel_tool_calls", "there are no tools to call in parallel");
  } else {
    if (choice) neutral.toolChoice = { value: choice, path: "tool_choice" };
    if (typeof chat.parallel_tool_calls === "boolean") neutral.parallelToolCalls = { value: chat.parallel_tool_calls, path: "parallel_tool_calls" };
  }
  // Web search is no function tool in Chat Completions (a tool choice never names it).
  if (isSet(chat.web_search_options)) {
    const options = asRecord(chat.web_search_options);
    if (!options) throw invalid("web_search_options", "expected an object");
    const raw: Record<string, unknown> = {};
    const location = approximateLocation(asRecord(asRecord(options.user_location)?.approximate));
    if (location) raw.user_location = location;
    if (isSet(options.search_context_size) && dropOrRefuse(context, "search-context-size", "web_search_options.search_context_size")) raw.search_context_size = options.search_context_size;
    neutral.tools.push({ type: "hosted", kind: "web_search", raw, path: "web_search_options" });
  }
}


function functionTool(value: unknown, field: string, context: RequestReadContext): Tool {
  const tool = asRecord(value);
  if (tool?.type !== "function") throw unsupported(`${field}.type`, `${String(tool?.type)} tools have no ${context.accepts.name} equivalent`);
  const fn = asRecord(tool.function);
  if (!fn) throw invalid(`${field}.function`, "expected a function definition");
  if (typeof fn.name !== "string" || fn.name.length === 0) throw invalid(`${field}.function.name`, "expected a tool name");
  const neutral: Tool = { type: "function", name: fn.name, parameters: asRecord(fn.parameters) ?? { type: "object", properties: {} }, path: field };
  if (typeof fn.description === "string") neutral.description = fn.description;
  if (typeof fn.strict === "boolean") neutral.strict = fn.strict;
  return neutral;
}

/** Chat Completions `tool_choice`: "auto" | "none" | "required" | {type:"function", function:{name}}. */
function toolChoice(value: unknown, context: RequestReadContext): ToolChoice {
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  const choice = asRecord(value);
  const name = asRecord(choice?.function)?.name;
  if (choice?.type === "function" && typeof name === "string") return { type: "function", name };
  if (choice?.type === "allowed_tools" || choice?.type === "custom") {
    throw unsupported("tool_choice", `${choice.type} tool choices have no ${context.accepts.name} equivalent`);
  }
  throw invalid("tool_choice", "expected auto, none, required or a function choice");
}

function responseFormat(value: unknown, context: RequestReadContext): Format | null {
  const format = asRecord(value);
  switch (format?.type) {
    case undefined:
    case "text":
      return null;
    case "json_schema": {
      const spec = asRecord(format.json_schema);
      const schema = asRecord(spec?.schema);
      if (!schema) throw invalid("response_format.json_schema.schema", "expected a JSON schema");
      const neutral: Format = { type: "json_schema", schema };
      if (typeof spec?.name === "string") neutral.name = spec.name;
      if (typeof spec?.description === "string") neutral.description = spec.description;
      if (typeof spec?.strict === "boolean") neutral.strict = spec.strict;
      return neutral;
    }
    case "json_object":
      return dropOrRefuse(context, "json-object-format", "response_format") ? { type: "json" } : null;
    default:
      throw invalid("response_format.type", "expected text, json_schema or json_object");
  }
}
