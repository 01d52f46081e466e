import { asRecord } from "../../../core/request-fields.ts";
import { screenUnhandledFields } from "../../../core/bookkeeping.ts";
import { customToolArguments, customToolDefinition } from "../../../core/custom-tools.ts";
import { dropOrRefuse, dropped } from "../../../core/drop-or-refuse.ts";
import { invalid, isSet, list, unsupported } from "../../../core/fields.ts";
import { fileFromUrl } from "../../../core/media.ts";
import { approximateLocation, emptyRequest, type Format, type NeutralRequest, type Part, type ReasoningEffort, type RequestReadContext, type Tool, type ToolChoice, type Turn } from "../../../core/neutral-request.ts";
import { flattenNamespaces, namespacedName } from "../namespace-tools.ts";
import { decodeOpaque } from "../../../core/opaque.ts";
import { isWebSearchTool } from "../web-search.ts";
import { readInput, type InputItem, type InputPart } from "./input-items.ts";

/** Top-level Responses fields tied to OpenAI's Responses service itself, read by `statefulFields`. */
export const STATEFUL_FIELDS = [
  "previous_response_id", "conversation", "prompt", "context_management", "max_tool_calls", "store", "background", "truncation", "top_logprobs", "include",
  "access_programs", "image", "moderation", "prompt_cache_options",
] as const;

const HANDLED = new Set([
  "model", "input", "instructions", "stream", "max_output_tokens", "temperature", "top_p", "user", "safety_identifier",
  "prompt_cache_key", "prompt_cache_retention", "service_tier", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning",
  // Kept on the returned response object, never sent upstream.
  "metadata",
  // Stream options only tune obfuscation padding, which is not sent.
  "stream_options",
  ...STATEFUL_FIELDS,
]);

/**
 * A Responses request -> the neutral request, for an upstream of another shape (Anthropic, or
 * Chat Completions on an OpenAI upstream without the Responses API). What the target writer does
 * not take (its `accepts` table) is dropped or refused here, in reading order.
 */
export function readRequest(request: Record<string, unknown>, context: RequestReadContext): NeutralRequest {
  screenUnhandledFields(request, HANDLED, context.accepts.upstream, context.drops);
  // A target that runs the web search tool itself meets `max_tool_calls` and the sources include.
  const webSearch = context.accepts.webSearch && list(request.tools).some((tool) => isWebSearchTool(asRecord(tool)));
  statefulFields(request, context, webSearch);
  const neutral = emptyRequest(request.model, request.stream === true);
  neutral.layout = "bound-after-stream";
  if (isSet(request.instructions)) {
    if (typeof request.instructions !== "string") throw invalid("instructions", "expected a string");
    neutral.instructions.push({ type: "text", text: request.instructions, path: "instructions" });
    neutral.instructionsPlain = true;
  }
  for (const item of readInput(request.input)) {
    const turn = itemTurn(item, context);
    if (turn) neutral.turns.push(turn);
  }
  if (context.outputBound !== undefined) neutral.output.bound = { value: context.outputBound, path: "max_output_tokens" };
  if (isSet(request.temperature)) {
    const above = typeof request.temperature === "number" && request.temperature > 1;
    if (!above || dropOrRefuse(context, "temperature-above-1", "temperature")) neutral.sampling.temperature = { value: request.temperature as number, path: "temperature" };
  }
  if (isSet(request.top_p)) neutral.sampling.topP = { value: request.top_p as number, path: "top_p" };
  endUser(request, neutral, context);
  if (isSet(request.service_tier)) {
    if (request.service_tier === "auto" || request.service_tier === "default" || dropOrRefuse(context, "service-tier", "service_tier")) {
      neutral.serviceTier = { value: request.service_tier as string, path: "service_tier" };
    }
  }
  // Prompt-cache routing hints steer OpenAI's automatic cache, never the answer.
  for (const field of ["prompt_cache_key", "prompt_cache_retention"] as const) {
    if (isSet(request[field]) && dropOrRefuse(context, "prompt-cache-hint", field)) {
      neutral.promptCache = { ...neutral.promptCache, [field === "prompt_cache_key" ? "key" : "retention"]: { value: request[field], path: field } };
    }
  }
  readTools(request, neutral, context);
  const text = asRecord(request.text);
  if (isSet(text?.verbosity) && dropOrRefuse(context, "verbosity", "text.verbosity")) neutral.output.verbosity = { value: text?.verbosity as string, path: "text.verbosity" };
  const format = textFormat(asRecord(text?.format), context);
  if (format) neutral.output.format = { value: format, path: "text.format" };
  const reasoning = asRecord(request.reasoning);
  for (const field of ["summary", "generate_summary"] as const) {
    if (isSet(reasoning?.[field])) dropOrRefuse(context, "reasoning-summary", `reasoning.${field}`);
  }
  if (isSet(reasoning?.effort)) neutral.reasoning = { effort: reasoning?.effort as ReasoningEffort, path: "reasoning.effort" };
  return neutral;
}

/**
 * Responses fields tied to OpenAI's Responses service itself. What the answer depends on (stored
 * state, prompt templates, background runs, log probabilities, moderation results, a cache prewarm
 * that answers nothing) is a 400 naming it; what only tunes the answer or its bookkeeping (storing
 * it, context compaction, truncation on overflow, limits on built-in tool calls, image compression,
 * cache options, OpenAI's access programs) is dropped and listed. Every other API is "another" here.
 */
function statefulFields(request: Record<string, unknown>, context: RequestReadContext, webSearch: boolean): void {
  const drops = context.drops;
  for (const field of ["previous_response_id", "conversation", "prompt"] as const) {
    if (isSet(request[field])) throw unsupported(field, "needs the Responses API itself; this model's upstream is served through another API");
  }
  if (request.background === true) throw unsupported("background", "background responses need the Responses API itself");
  if (isSet(request.top_logprobs) && request.top_logprobs !== 0) throw unsupported("top_logprobs", "log probabilities cannot be served through another API");
  if (isSet(request.moderation)) throw unsupported("moderation", "moderation results need the Responses API itself");
  // A stateless request (store: false) changes nothing; store: true asks for what is not kept here.
  if (request.store === true) drops.drop("store", "responses served through another API are not stored");
  drops.dropIfSet(request, "context_management", "", "context compaction needs the Responses API itself");
  if (!webSearch) drops.dropIfSet(request, "max_tool_calls", "", "it limits built-in tools, which another API does not run");
  if (isSet(request.truncation) && request.truncation !== "disabled") drops.drop("truncation", "only disabled truncation can be served through another API");
  const cacheOptions = asRecord(request.prompt_cache_options);
  if (cacheOptions?.prewarm === true) throw unsupported("prompt_cache_options.prewarm", "a prewarm answers nothing, which another API cannot do");
  if (Object.keys(cacheOptions ?? {}).length > 0) drops.drop("prompt_cache_options", "another API caches prompts its own way");
  const image = asRecord(request.image);
  if (isSet(image?.context_compression) && image?.context_compression !== "auto") drops.drop("image.context_compression", "another API sizes images its own way");
  if (Object.keys(asRecord(request.access_programs) ?? {}).length > 0) drops.drop("access_programs", "access programs are OpenAI's own");
  for (const [index, value] of list(request.include).entries()) {
    if (value === "message.output_text.logprobs") throw unsupported(`include[${index}]`, "log probabilities cannot be served through another API");
    if (value === "reasoning.encrypted_content" && context.accepts.encryptedReasoning) continue;
    if (value === "web_search_call.action.sources" && webSearch) continue;
    drops.drop(`include[${index}]`, `${String(value)} cannot be served through another API`);
  }
}

/**
 * `user` and `safety_identifier` both identify the end user; a target with one such field
 * (Anthropic `metadata.user_id`) carries `user`, and a different `safety_identifier` is its table's.
 */
function endUser(request: Record<string, unknown>, neutral: NeutralRequest, context: RequestReadContext): void {
  const user = request.user;
  const safety = request.safety_identifier;
  if (isSet(user)) neutral.user = { value: user as string, path: "user" };
  if (!isSet(safety)) return;
  if (typeof user === "string" && typeof safety === "string" && safety !== user && !dropOrRefuse(context, "second-user-id", "safety_identifier")) return;
  neutral.safetyIdentifier = { value: safety as string, path: "safety_identifier" };
}

/** One input item -> one neutral turn (the writers join consecutive turns as their shape needs); null when it was dropped. */
function itemTurn(item: InputItem, context: RequestReadContext): Turn | null {
  switch (item.kind) {
    case "message": {
      const role = item.role === "developer" ? "system" : item.role;
      const turn: Turn = { role, parts: [], path: item.field };
      if (item.role === "developer") turn.developer = true;
      if (typeof item.content === "string") {
        turn.parts.push({ type: "text", text: item.content, path: `${item.field}.content` });
        turn.plain = true;
      } else turn.parts = item.content.map((part, index) => contentPart(part, `${item.field}.content[${index}]`, context));
      return turn;
    }
    case "function_call":
    case "custom_tool_call": {
      const input = item.kind === "function_call" ? item.arguments : JSON.stringify(customToolArguments(item.input));
      return { role: "assistant", parts: [{ type: "tool-call", callId: item.callId, name: namespacedName(item.namespace, item.name), input, path: item.field }], path: item.field };
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      const path = `${item.field}.output`;
      const result = { type: "tool-result" as const, callId: item.callId, name: "", path: item.field };
      const part: Part =
        typeof item.output === "string"
          ? { ...result, content: [{ type: "text", text: item.output, path }], plain: true }
          : { ...result, content: item.output.map((inner, index) => contentPart(inner, `${path}[${index}]`, context)) };
      return { role: "user", parts: [part], path: item.field };
    }
    case "reasoning": {
      const part = reasoningPart(item, context);
      return part ? { role: "assistant", parts: [part], path: item.field } : null;
    }
    case "web_search_call":
      // The item holds the query, never the results: the answer that used them stays.
      dropOrRefuse(context, "earlier-web-search", item.field, dropped("an earlier web search's results cannot be sent through another API; the answer that used them stays"));
      return null;
    default: {
      const never: never = item;
      return never;
    }
  }
}

function contentPart(part: InputPart, path: string, context: RequestReadContext): Part {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text, path };
    case "refusal":
      return { type: "text", text: part.text, refusal: true, path };
    case "image": {
      const detail = part.detail !== undefined && part.detail !== "auto" && !dropOrRefuse(context, "image-detail", `${path}.detail`) ? undefined : part.detail;
      return fileFromUrl(part.url, part.field, detail);
    }
    default: {
      const never: never = part;
      return never;
    }
  }
}

/**
 * A reasoning item this gateway returned: its `encrypted_content` is the signed reasoning it came
 * from (a signature or a redacted block, tagged by who made it: core/opaque.ts), which only that
 * kind of target verifies; OpenAI's own (a Fernet token) came from a session that began on an
 * OpenAI model. One without encrypted content cannot be signed reasoning: it only informed.
 */
function reasoningPart(item: Extract<InputItem, { kind: "reasoning" }>, context: RequestReadContext): Part | null {
  if (!dropOrRefuse(context, "earlier-reasoning", item.field)) return null;
  if (item.encrypted === null) {
    dropOrRefuse(context, "unsigned-reasoning", item.field, dropped("reasoning items without encrypted_content cannot be sent through another API"));
    return null;
  }
  const { origin, value, redacted } = decodeOpaque(item.encrypted);
  if (origin !== context.accepts.origin && !dropOrRefuse(context, "foreign-reasoning", item.field)) return null;
  if (redacted) return { type: "reasoning", text: "", redacted: { origin, value }, path: item.field };
  return { type: "reasoning", text: item.summary, signature: { origin, value }, path: item.field };
}

/** Tools (namespaces flattened), the tool choice and parallel calls. */
function readTools(request: Record<string, unknown>, neutral: NeutralRequest, context: RequestReadContext): void {
  // max_tool_calls: 0 allows no built-in tool call: web search is then not offered at all.
  const offered = flattenNamespaces(request.tools).filter(({ tool }) => !(isWebSearchTool(tool) && request.max_tool_calls === 0 && context.accepts.webSearch));
  for (const { tool, field } of offered) {
    const neutralTool = readTool(tool, field, request.max_tool_calls, context);
    if (neutralTool) neutral.tools.push(neutralTool);
  }
  const choice = isSet(request.tool_choice) ? toolChoice(request.tool_choice) : null;
  if (neutral.tools.length > 0) {
    if (choice) neutral.toolChoice = { value: choice, path: "tool_choice" };
    if (typeof request.parallel_tool_calls === "boolean") neutral.parallelToolCalls = { value: request.parallel_tool_calls, path: "parallel_tool_calls" };
  } else if (choice?.type === "required" || choice?.type === "function") {
    // Without tools, "auto" and "none" change nothing; a forced choice the upstream must refuse.
    throw invalid("tool_choice", "a tool choice needs tools");
  } else if (typeof request.parallel_tool_calls === "boolean") {
    context.drops.drop("parallel_tool_calls", "there are no tools to call in parallel");
  }
}

/**
 * A function tool as is; a custom (freeform) tool as freeform (its grammar given to the model in the
 * description); web search as a hosted web search where the target runs one; other built-in tools refused.
 */
function readTool(tool: Record<string, unknown>, field: string, maxToolCalls: unknown, context: RequestReadContext): Tool | null {
  if (isWebSearchTool(tool)) {
    if (!dropOrRefuse(context, "web-search-tool", field)) return null;
    const raw: Record<string, unknown> = {};
    if (typeof maxToolCalls === "number" && Number.isInteger(maxToolCalls) && maxToolCalls > 0) raw.max_uses = maxToolCalls;
    else if (isSet(maxToolCalls) && maxToolCalls !== 0) dropOrRefuse(context, "search-max-uses", "max_tool_calls");
    const domains = list(asRecord(tool.filters)?.allowed_domains).filter((domain): domain is string => typeof domain === "string");
    if (domains.length > 0) raw.allowed_domains = domains;
    const location = approximateLocation(asRecord(tool.user_location));
    if (location) raw.user_location = location;
    if (isSet(tool.search_context_size)) dropOrRefuse(context, "search-context-size", `${field}.search_context_size`);
    if (tool.external_web_access === false) dropOrRefuse(context, "search-cached-only", `${field}.external_web_access`);
    return { type: "hosted", kind: "web_search", raw, path: field };
  }
  switch (tool.type) {
    case "function": {
      if (isSet(tool.defer_loading)) dropOrRefuse(context, "defer-loading", `${field}.defer_loading`);
      if (typeof tool.name !== "string" || tool.name.length === 0) throw invalid(`${field}.name`, "expected a tool name");
      const neutral: Tool = { type: "function", name: tool.name, parameters: (tool.parameters ?? { type: "object", properties: {} }) as Record<string, unknown>, path: field };
      if (typeof tool.description === "string") neutral.description = tool.description;
      if (typeof tool.strict === "boolean") neutral.strict = tool.strict;
      return neutral;
    }
    case "custom": {
      if (isSet(tool.defer_loading)) dropOrRefuse(context, "defer-loading", `${field}.defer_loading`);
      return { type: "freeform", ...customToolDefinition(tool, field, context.drops), path: field };
    }
    default:
      throw unsupported(field, `${String(tool.type)} is a built-in Responses tool with no ${context.accepts.name} equivalent`);
  }
}


/**
 * Responses `tool_choice`: the same strings, or {type:"function"|"custom", name} (a custom tool is
 * a function tool on the other side); hosted-tool choices are refused.
 */
function toolChoice(value: unknown): ToolChoice {
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  const choice = asRecord(value);
  if ((choice?.type === "function" || choice?.type === "custom") && typeof choice.name === "string") return { type: "function", name: choice.name };
  if (typeof choice?.type === "string") throw unsupported("tool_choice", `${choice.type} tool choices are only available on the Responses API itself`);
  throw invalid("tool_choice", "expected auto, none, required or a function choice");
}

/** `text.format`: text, a JSON schema, or JSON mode (where the target has it). */
function textFormat(format: Record<string, unknown> | null, context: RequestReadContext): Format | null {
  switch (format?.type) {
    case undefined:
    case "text":
      return null;
    case "json_object":
      return dropOrRefuse(context, "json-object-format", "text.format") ? { type: "json" } : null;
    case "json_schema": {
      const neutral: Format = { type: "json_schema", name: format.name as string, schema: format.schema as Record<string, unknown> };
      if (typeof format.description === "string") neutral.description = format.description;
      if (typeof format.strict === "boolean") neutral.strict = format.strict;
      return neutral;
    }
    default:
      throw invalid("text.format.type", "expected text, json_schema or json_object");
  }
}

