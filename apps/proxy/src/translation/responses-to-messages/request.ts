import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
import { REDACTED_THINKING_PREFIX } from "../responses-output/output-items.ts";
import { readInput, type InputItem, type InputPart } from "../responses-input/read-input.ts";
import { STATEFUL_FIELDS, oneUserId, statefulFields } from "../responses-input/refused-fields.ts";
import { screenUnhandledFields } from "../shared/bookkeeping-fields.ts";
import { CUSTOM_TOOL_SCHEMA, customToolArguments, customToolDefinition } from "../../core/custom-tools.ts";
import { flattenNamespaces, namespacedName } from "../shared/namespace-tools.ts";
import { ANTHROPIC_WEB_SEARCH_NAME, anthropicWebSearchTool, hasWebSearchTool, isWebSearchTool } from "../shared/web-search.ts";
import {
  AnthropicTurns,
  anthropicOutputConfig,
  anthropicSystem,
  anthropicTemperature,
  anthropicTool,
  anthropicTools,
  textBlock,
  type AnthropicBlock,
} from "../shared/anthropic-request.ts";
import { ANTHROPIC_MESSAGES, invalid, isSet, unsupported } from "../../core/fields.ts";
import { anthropicImageSource } from "../shared/images.ts";
import { toolChoiceFromResponses } from "../shared/tool-choice.ts";
import type { DroppedParams } from "../../core/drops.ts";

const HANDLED = new Set([
  "model", "input", "instructions", "stream", "max_output_tokens", "temperature", "top_p", "user", "safety_identifier",
  "service_tier", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning",
  // Kept on the returned response object, never sent upstream.
  "metadata",
  // Obfuscation padding and prompt-cache routing hints: none changes the answer.
  "stream_options", "prompt_cache_key", "prompt_cache_retention",
  // Checked by statefulFields.
  ...STATEFUL_FIELDS,
]);

/**
 * A Responses request -> an Anthropic Messages request (model still the public name).
 * `outputBound` is the request's one output bound (limits/output-bound.ts), sent as `max_tokens`.
 */
export function messagesRequestFromResponses(request: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  screenUnhandledFields(request, HANDLED, ANTHROPIC_MESSAGES, dropped);
  // Anthropic's thinking comes back signed, as encrypted_content: that include is honoured; so is
  // a web search tool, which Anthropic runs itself.
  const webSearch = hasWebSearchTool(request);
  statefulFields(request, dropped, { encryptedReasoning: true, webSearch });
  const system: string[] = [];
  if (isSet(request.instructions)) {
    if (typeof request.instructions !== "string") throw invalid("instructions", "expected a string");
    system.push(request.instructions);
  }
  const turns = new AnthropicTurns();
  for (const item of readInput(request.input)) addItem(system, turns, item, dropped);
  const body: Record<string, unknown> = { model: request.model, max_tokens: outputBound, messages: turns.finish() };
  const systemPrompt = anthropicSystem(system);
  if (systemPrompt !== undefined) body.system = systemPrompt;
  if (request.stream === true) body.stream = true;
  const temperature = anthropicTemperature(request.temperature, dropped);
  if (temperature !== undefined) body.temperature = temperature;
  if (isSet(request.top_p)) body.top_p = request.top_p;
  const userId = oneUserId(request, dropped);
  if (userId !== undefined) body.metadata = { user_id: userId };
  if (request.service_tier === "auto" || request.service_tier === "default") body.service_tier = request.service_tier === "auto" ? "auto" : "standard_only";
  else dropped.dropIfSet(request, "service_tier", "", "Anthropic-shape models offer only the auto and default tiers");
  // Prompt-cache routing hints steer OpenAI's automatic cache, never the answer.
  dropped.dropIfSet(request, "prompt_cache_key", "", "Anthropic-shape models cache prompts by cache_control breakpoints");
  dropped.dropIfSet(request, "prompt_cache_retention", "", "Anthropic-shape models cache prompts by cache_control breakpoints");
  // max_tool_calls: 0 allows no built-in tool call: web search is then not offered at all.
  const offered = flattenNamespaces(request.tools).filter(({ tool }) => !(isWebSearchTool(tool) && request.max_tool_calls === 0));
  const tools = offered.map(({ tool, field }) => anthropicToolFromResponses(tool, field, request.max_tool_calls, dropped));
  // Anthropic refuses two tools of one name; its web search server tool's name is fixed.
  const search = offered.find(({ tool }) => isWebSearchTool(tool));
  if (search && tools.some((tool) => tool.type === undefined && tool.name === ANTHROPIC_WEB_SEARCH_NAME)) {
    throw unsupported(search.field, `a function tool is already named ${ANTHROPIC_WEB_SEARCH_NAME}, the name Anthropic's web search tool takes`);
  }
  anthropicTools(body, tools, isSet(request.tool_choice) ? toolChoiceFromResponses(request.tool_choice) : null, request.parallel_tool_calls, dropped);
  const text = asRecord(request.text);
  dropped.dropIfSet(text, "verbosity", "text.", "Anthropic-shape models have no verbosity setting");
  // reasoning.summary needs nothing: Anthropic's thinking is itself a summary, returned as one.
  anthropicOutputConfig(body, asRecord(request.reasoning)?.effort, "reasoning.effort", jsonSchema(asRecord(text?.format)));
  return body;
}

function jsonSchema(format: Record<string, unknown> | null): Record<string, unknown> | null {
  switch (format?.type) {
    case undefined:
    case "text":
      return null;
    case "json_schema": {
      const schema = asRecord(format.schema);
      if (!schema) throw invalid("text.format.schema", "expected a JSON schema");
      return schema;
    }
    case "json_object":
      throw unsupported("text.format", "json_object mode has no Anthropic equivalent; send a json_schema format");
    default:
      throw invalid("text.format.type", "expected text, json_schema or json_object");
  }
}

/**
 * A function tool as is; a custom (freeform) tool as a tool with one string input (namespaces
 * already flattened into both); web search as Anthropic's own; other built-in tools refused.
 */
function anthropicToolFromResponses(tool: Record<string, unknown>, field: string, maxToolCalls: unknown, dropped: DroppedParams): Record<string, unknown> {
  if (isWebSearchTool(tool)) return anthropicWebSearchTool(tool, field, maxToolCalls, dropped);
  switch (tool.type) {
    case "function":
      dropped.dropIfSet(tool, "defer_loading", `${field}.`, "Anthropic-shape models load every tool up front here");
      return anthropicTool(tool, field);
    case "custom":
      dropped.dropIfSet(tool, "defer_loading", `${field}.`, "Anthropic-shape models load every tool up front here");
      return { ...customToolDefinition(tool, field, dropped), input_schema: CUSTOM_TOOL_SCHEMA };
    default:
      throw unsupported(field, `${String(tool.type)} is a built-in Responses tool with no Anthropic equivalent`);
  }
}

function addItem(system: string[], turns: AnthropicTurns, item: InputItem, dropped: DroppedParams): void {
  switch (item.kind) {
    case "message":
      if (item.role === "system" || item.role === "developer") {
        const texts = typeof item.content === "string" ? [item.content] : item.content.map((part, index) => textOnly(part, `${item.field}.content[${index}]`));
        // Leading ones are the system prompt; a later one (Codex sends developer messages mid-session)
        // stays a system message in its place, folded by the request drops for a model without them.
        if (turns.messages.length > 0) turns.system(texts.flatMap(textBlock));
        else system.push(...texts);
      } else {
        const role = item.role;
        turns.add(role, typeof item.content === "string" ? textBlock(item.content) : item.content.flatMap((part) => contentBlock(part, role, dropped)));
      }
      return;
    case "function_call": {
      const input = asRecord(tryJson(item.arguments));
      if (!input) throw invalid(`${item.field}.arguments`, "expected a JSON object");
      turns.add("assistant", [{ type: "tool_use", id: item.callId, name: namespacedName(item.namespace, item.name), input }]);
      return;
    }
    case "custom_tool_call":
      turns.add("assistant", [{ type: "tool_use", id: item.callId, name: namespacedName(item.namespace, item.name), input: customToolArguments(item.input) }]);
      return;
    case "function_call_output":
    case "custom_tool_call_output": {
      const content = typeof item.output === "string" ? item.output : item.output.flatMap((part) => contentBlock(part, "user", dropped));
      turns.add("user", [{ type: "tool_result", tool_use_id: item.callId, content }]);
      return;
    }
    case "reasoning":
      turns.add("assistant", thinkingBlock(item, dropped));
      return;
    case "web_search_call":
      // The item holds the query, never the results (Anthropic would want them back whole, with
      // their encrypted content): the answer that used them follows as assistant text.
      dropped.drop(item.field, "an earlier web search's results cannot be sent back to an Anthropic-shape model; the answer that used them stays");
      return;
    default: {
      const never: never = item;
      return never;
    }
  }
}

function textOnly(part: InputPart, field: string): string {
  if (part.type !== "text") throw unsupported(field, "system instructions take text only");
  return part.text;
}

function contentBlock(part: InputPart, role: "user" | "assistant", dropped: DroppedParams): AnthropicBlock[] {
  switch (part.type) {
    case "text":
    case "refusal":
      return textBlock(part.text);
    case "image":
      if (role === "assistant") throw unsupported(part.field, "assistant messages carry no images");
      if (part.detail !== undefined && part.detail !== "auto") dropped.drop(`${part.field.replace(/\.image_url$/, "")}.detail`, "Anthropic-shape models size images themselves");
      return [{ type: "image", source: anthropicImageSource(part.url, part.field) }];
    default: {
      const never: never = part;
      return never;
    }
  }
}

/** Every Fernet token (OpenAI's encrypted reasoning) starts with its version byte 0x80, base64url "gAAAAA". */
const OPENAI_ENCRYPTED_REASONING_PREFIX = "gAAAAA";

/**
 * A reasoning item this gateway returned -> the signed thinking block it came from. One without
 * encrypted_content cannot be a signed block: earlier reasoning only informs, so it is dropped.
 */
function thinkingBlock(item: Extract<InputItem, { kind: "reasoning" }>, dropped: DroppedParams): AnthropicBlock[] {
  if (item.encrypted === null) {
    dropped.drop(item.field, "reasoning items without encrypted_content cannot be sent to an Anthropic-shape model");
    return [];
  }
  // OpenAI's own encrypted reasoning (a Fernet token, "gAAAAA..."): from a session that began on an
  // OpenAI model. Anthropic would refuse it as a signature, so it is dropped like unsigned reasoning.
  if (item.encrypted.startsWith(OPENAI_ENCRYPTED_REASONING_PREFIX)) {
    dropped.drop(item.field, "reasoning encrypted by OpenAI cannot be verified by an Anthropic-shape model");
    return [];
  }
  if (item.encrypted.startsWith(REDACTED_THINKING_PREFIX)) return [{ type: "redacted_thinking", data: item.encrypted.slice(REDACTED_THINKING_PREFIX.length) }];
  return [{ type: "thinking", thinking: item.summary, signature: item.encrypted }];
}
