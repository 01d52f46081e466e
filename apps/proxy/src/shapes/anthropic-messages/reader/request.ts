import { asRecord } from "../../../core/request-fields.ts";
import { withoutBookkeeping } from "../../../core/bookkeeping.ts";
import { dropOrRefuse, dropped } from "../../../core/drop-or-refuse.ts";
import { invalid, isSet, list, refuseUnhandledFields, unsupported } from "../../../core/fields.ts";
import { decodeOpaque } from "../../../core/opaque.ts";
import { emptyRequest, type NeutralRequest, type Part, type RequestReadContext, type TextPart, type Tool, type ToolChoice, type Turn } from "../../../core/neutral-request.ts";
import { openaiEffortFromThinking } from "../../../core/reasoning.ts";
import { argumentsFromToolInput } from "../../../core/tool-input.ts";
import { ANTHROPIC_WEB_SEARCH_NAME, isAnthropicWebSearchTool } from "../web-search.ts";

/** Top-level Messages fields with no neutral word that only tune the answer: the target decides (dropped, listed, on the other shapes). */
const TOP_LEVEL_PASSENGERS = { top_k: "top-k", cache_control: "cache-control", context_management: "context-management", inference_geo: "inference-geo", speed: "speed" } as const;

const HANDLED = new Set([
  "model", "max_tokens", "messages", "system", "stream", "stop_sequences", "temperature", "top_p", "metadata",
  "tools", "tool_choice", "thinking", "output_config", "service_tier",
  ...Object.keys(TOP_LEVEL_PASSENGERS),
]);

/** Tool fields that only tune how the tool is offered or streamed. */
const TOOL_PASSENGERS = { cache_control: "cache-control", eager_input_streaming: "eager-input-streaming", input_examples: "input-examples", defer_loading: "defer-loading", allowed_callers: "allowed-callers" } as const;
const TOOL_FIELDS = new Set(["name", "description", "input_schema", "type", "strict"]);

/**
 * An Anthropic Messages request -> the neutral request, for an upstream of another shape. What the
 * target writer does not take (its `accepts` table) is dropped or refused here, in reading order,
 * by `dropOrRefuse`: the ledger then lists paths as the client wrote them.
 */
export function readRequest(body: Record<string, unknown>, context: RequestReadContext): NeutralRequest {
  // Unread bookkeeping fields (client_metadata, x-*) are dropped, listed, before the fields are checked.
  const request = withoutBookkeeping(body, context.drops);
  refuseUnhandledFields(request, HANDLED, context.accepts.upstream);
  for (const [field, feature] of Object.entries(TOP_LEVEL_PASSENGERS)) if (isSet(request[field])) dropOrRefuse(context, feature, field);
  const reader = new Reader(context);
  const neutral = emptyRequest(request.model, request.stream === true);
  neutral.instructions = reader.system(request.system);
  neutral.turns = list(request.messages).flatMap((message, index) => reader.turn(message, `messages[${index}]`));
  if (typeof request.system === "string") neutral.instructionsPlain = true;
  if (context.outputBound !== undefined) neutral.output.bound = { value: context.outputBound, path: "max_tokens" };
  if (isSet(request.stop_sequences)) {
    if (!Array.isArray(request.stop_sequences)) throw invalid("stop_sequences", "expected an array of strings");
    if (request.stop_sequences.length > 0) neutral.output.stop = { value: request.stop_sequences, path: "stop_sequences" };
  }
  if (isSet(request.temperature)) neutral.sampling.temperature = { value: request.temperature as number, path: "temperature" };
  if (isSet(request.top_p)) neutral.sampling.topP = { value: request.top_p as number, path: "top_p" };
  for (const [field, value] of Object.entries(asRecord(request.metadata) ?? {})) {
    if (field === "user_id") {
      const max = context.accepts.maxUserLength;
      if (typeof value === "string" && (max === undefined || value.length <= max)) neutral.user = { value, path: "metadata.user_id" };
      else if (isSet(value)) dropOrRefuse(context, "long-user-id", "metadata.user_id");
    } else if (isSet(value)) dropOrRefuse(context, "metadata", `metadata.${field}`);
  }
  if (request.service_tier === "auto" || request.service_tier === "standard_only") neutral.serviceTier = { value: request.service_tier === "auto" ? "auto" : "default", path: "service_tier" };
  else if (isSet(request.service_tier)) dropOrRefuse(context, "foreign-service-tier", "service_tier", dropped("the other side takes only the auto and standard_only tiers"));
  reader.tools(request, neutral);
  const outputConfig = asRecord(request.output_config) ?? {};
  for (const field of Object.keys(outputConfig)) {
    if (field !== "effort" && field !== "format" && isSet(outputConfig[field])) dropOrRefuse(context, "output-config", `output_config.${field}`);
  }
  const effort = openaiEffortFromThinking(request.thinking, outputConfig.effort, context.drops);
  // A fixed budget stays a budget (a writer that takes levels rounds it: `reasoningLevel`).
  const budget = isSet(outputConfig.effort) ? undefined : asRecord(request.thinking)?.budget_tokens;
  if (effort && typeof budget === "number") neutral.reasoning = { budgetTokens: budget, path: "thinking" };
  else if (effort) neutral.reasoning = { effort, path: isSet(outputConfig.effort) ? "output_config.effort" : "thinking" };
  const format = asRecord(outputConfig.format);
  if (format) {
    if (format.type !== "json_schema" || !asRecord(format.schema)) throw invalid("output_config.format", "expected a json_schema format with a schema");
    // Anthropic's structured output is always constrained, hence strict.
    neutral.output.format = { value: { type: "json_schema", name: "output", schema: asRecord(format.schema)!, strict: true }, path: "output_config.format" };
  }
  return neutral;
}

/** The block readers, with what they share: the context, whose table decides each block's fate. */
class Reader {
  private readonly context: RequestReadContext;

  constructor(context: RequestReadContext) {
    this.context = context;
  }

  /** A block's prompt-cache breakpoint. */
  private cacheControl(block: Record<string, unknown>, field: string): void {
    if (isSet(block.cache_control)) dropOrRefuse(this.context, "cache-control", `${field}.cache_control`);
  }

  /** Citations carried on a text block of the history. */
  private citations(block: Record<string, unknown>, field: string): void {
    if (list(block.citations).length > 0) dropOrRefuse(this.context, "text-citations", `${field}.citations`);
  }

  private noEquivalent(field: string, type: unknown): never {
    throw unsupported(field, `${String(type)} blocks have no ${this.context.accepts.name} equivalent`);
  }

  /** `system`: a string, or text blocks (kept as text parts, so their boundaries survive). */
  system(system: unknown): TextPart[] {
    if (!isSet(system)) return [];
    if (typeof system === "string") return [{ type: "text", text: system, path: "system" }];
    return this.textParts(system, "system");
  }

  private textParts(blocks: unknown, path: string): TextPart[] {
    if (!Array.isArray(blocks)) throw invalid(path, "expected a string or an array of text blocks");
    return blocks.map((raw, index) => {
      const block = asRecord(raw);
      const field = `${path}[${index}]`;
      if (block?.type !== "text" || typeof block.text !== "string") throw unsupported(field, `${String(block?.type)} blocks are not accepted here`);
      this.cacheControl(block, field);
      this.citations(block, field);
      return { type: "text", text: block.text, path: field };
    });
  }

  turn(raw: unknown, path: string): Turn[] {
    const message = asRecord(raw);
    const field = `${path}.content`;
    switch (message?.role) {
      case "user":
        return [this.content("user", message.content, field, path)];
      case "assistant": {
        const turn = this.content("assistant", message.content, field, path);
        // A turn whose every block was dropped says nothing: it is left out.
        return turn.parts.length === 0 && Array.isArray(message.content) && message.content.length > 0 ? [] : [turn];
      }
      case "system":
        if (typeof message.content === "string") return [{ role: "system", parts: [{ type: "text", text: message.content, path: field }], plain: true, path }];
        return [{ role: "system", parts: this.textParts(message.content, field), path }];
      default:
        throw invalid(`${path}.role`, "expected user or assistant");
    }
  }

  private content(role: "user" | "assistant", content: unknown, field: string, path: string): Turn {
    if (typeof content === "string") return { role, parts: [{ type: "text", text: content, path: field }], plain: true, path };
    if (!Array.isArray(content)) throw invalid(field, "expected a string or an array of content blocks");
    const parts = content.flatMap((raw, index) => (role === "user" ? this.userBlock(raw, `${field}[${index}]`) : this.assistantBlock(raw, `${field}[${index}]`)));
    return { role, parts, path };
  }

  private userBlock(raw: unknown, field: string): Part[] {
    const block = asRecord(raw);
    switch (block?.type) {
      case "text":
        this.cacheControl(block, field);
        this.citations(block, field);
        return [{ type: "text", text: block.text as string, path: field }];
      case "image":
        this.cacheControl(block, field);
        return [imageFromSource(block.source, `${field}.source`, this.context.accepts.name)];
      case "tool_result":
        this.cacheControl(block, field);
        return [this.toolResult(block, field)];
      default:
        return this.noEquivalent(field, block?.type);
    }
  }

  /** `is_error` has no field on every side; the result's own text (the error message) is what the model reads, passed as is. */
  private toolResult(block: Record<string, unknown>, field: string): Part {
    if (typeof block.tool_use_id !== "string") throw invalid(`${field}.tool_use_id`, "expected a string");
    const content = block.content;
    const result = { type: "tool-result" as const, callId: block.tool_use_id, name: "", path: field };
    if (!isSet(content)) return { ...result, content: [{ type: "text", text: "", path: `${field}.content` }], plain: true };
    if (typeof content === "string") return { ...result, content: [{ type: "text", text: content, path: `${field}.content` }], plain: true };
    return { ...result, content: this.textParts(content, `${field}.content`) };
  }

  /**
   * An assistant block. Earlier thinking blocks carry a signature tagged by who made it
   * (core/opaque.ts: Anthropic's untagged, a Gemini thoughtSignature this gateway returned tagged),
   * which only that kind of target verifies: another target decides (dropped, listed, never turned
   * into text: LiteLLM #26916). One with an empty signature came unsigned and verifies nowhere.
   */
  private assistantBlock(raw: unknown, field: string): Part[] {
    const block = asRecord(raw);
    switch (block?.type) {
      case "text":
        this.cacheControl(block, field);
        this.citations(block, field);
        return [{ type: "text", text: typeof block.text === "string" ? block.text : "", path: field }];
      case "tool_use":
        this.cacheControl(block, field);
        return [{ type: "tool-call", callId: block.id as string, name: block.name as string, input: argumentsFromToolInput(block.input), path: field }];
      case "thinking":
      case "redacted_thinking": {
        const text = String((block.type === "thinking" ? block.signature : block.data) ?? "");
        if (text.length === 0) {
          dropOrRefuse(this.context, "unsigned-reasoning", field, dropped("a thinking block without a signature cannot be verified by any model"));
          return [];
        }
        const { origin, value, redacted } = decodeOpaque(text);
        if (origin !== this.context.accepts.origin && !dropOrRefuse(this.context, "foreign-reasoning", field)) return [];
        if (block.type === "redacted_thinking" || redacted) return [{ type: "reasoning", text: "", redacted: { origin, value }, path: field }];
        return [{ type: "reasoning", text: String(block.thinking ?? ""), signature: { origin, value }, path: field }];
      }
      case "server_tool_use":
      case "web_search_tool_result":
        // An earlier web search Anthropic ran: the answer that used it stays.
        if (block.type === "web_search_tool_result" || block.name === ANTHROPIC_WEB_SEARCH_NAME) {
          dropOrRefuse(this.context, "earlier-web-search", field);
          return [];
        }
        return this.noEquivalent(field, block.type);
      default:
        return this.noEquivalent(field, block?.type);
    }
  }

  /** Tools (web search server tools: the target decides), tool choice and `disable_parallel_tool_use`. */
  tools(request: Record<string, unknown>, neutral: NeutralRequest): void {
    const searchNames = new Set<string>();
    list(request.tools).forEach((raw, index) => {
      const tool = asRecord(raw);
      const field = `tools[${index}]`;
      if (isAnthropicWebSearchTool(tool)) {
        dropOrRefuse(this.context, "web-search-tool", field);
        searchNames.add(typeof tool?.name === "string" ? tool.name : ANTHROPIC_WEB_SEARCH_NAME);
        return;
      }
      neutral.tools.push(this.tool(tool, field));
    });
    if (!isSet(request.tool_choice)) return;
    const { choice, disableParallel } = toolChoice(request.tool_choice);
    if (choice.type === "function" && searchNames.has(choice.name)) dropOrRefuse(this.context, "forced-web-search", "tool_choice");
    if (neutral.tools.length === 0) {
      if (choice.type === "required" || choice.type === "function") {
        if (searchNames.size > 0) dropOrRefuse(this.context, "forced-only-web-search", "tool_choice");
        throw invalid("tool_choice", "a tool choice needs tools");
      }
      return;
    }
    neutral.toolChoice = { value: choice, path: "tool_choice" };
    if (disableParallel) neutral.parallelToolCalls = { value: false, path: "tool_choice.disable_parallel_tool_use" };
  }

  private tool(tool: Record<string, unknown> | null, field: string): Tool {
    if (!tool) throw invalid(field, "expected a tool");
    if (isSet(tool.type) && tool.type !== "custom") throw unsupported(`${field}.type`, `the server tool ${String(tool.type)} has no ${this.context.accepts.name} equivalent`);
    for (const [key, value] of Object.entries(tool)) {
      const feature = TOOL_PASSENGERS[key as keyof typeof TOOL_PASSENGERS];
      if (feature !== undefined) {
        if (isSet(value)) dropOrRefuse(this.context, feature, `${field}.${key}`);
      } else if (!TOOL_FIELDS.has(key) && isSet(value)) throw unsupported(`${field}.${key}`, `has no ${this.context.accepts.name} equivalent`);
    }
    if (typeof tool.name !== "string") throw invalid(`${field}.name`, "expected a tool name");
    const neutral: Tool = { type: "function", name: tool.name, parameters: (tool.input_schema ?? { type: "object", properties: {} }) as Record<string, unknown>, path: field };
    if (typeof tool.description === "string") neutral.description = tool.description;
    if (typeof tool.strict === "boolean") neutral.strict = tool.strict;
    return neutral;
  }
}

/** An Anthropic image source -> a neutral file part. */
function imageFromSource(source: unknown, field: string, upstream: string): Part {
  const record = asRecord(source);
  switch (record?.type) {
    case "base64":
      if (typeof record.media_type !== "string" || typeof record.data !== "string") throw invalid(field, "expected media_type and data");
      return { type: "file", mediaType: record.media_type, data: { base64: record.data }, path: field };
    case "url":
      if (typeof record.url !== "string") throw invalid(field, "expected a url");
      return { type: "file", mediaType: "", data: { url: record.url }, path: field };
    case "file":
      throw unsupported(field, `file-id image sources have no ${upstream} equivalent`);
    default:
      throw invalid(field, "expected an image source of type base64 or url");
  }
}

/** Anthropic `tool_choice`: {type:"auto"|"any"|"tool"|"none", name?, disable_parallel_tool_use?}. */
export function toolChoice(value: unknown): { choice: ToolChoice; disableParallel: boolean } {
  const choice = asRecord(value);
  const disableParallel = choice?.disable_parallel_tool_use === true;
  switch (choice?.type) {
    case "auto":
      return { choice: { type: "auto" }, disableParallel };
    case "any":
      return { choice: { type: "required" }, disableParallel };
    case "none":
      return { choice: { type: "none" }, disableParallel };
    case "tool":
      if (typeof choice.name !== "string") throw invalid("tool_choice.name", "expected a tool name");
      return { choice: { type: "function", name: choice.name }, disableParallel };
    default:
      throw invalid("tool_choice", "expected a tool choice of type auto, any, tool or none");
  }
}
