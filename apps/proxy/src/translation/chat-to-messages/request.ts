import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
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
import { ANTHROPIC_MESSAGES, invalid, isSet, list, refuseUnhandledFields, unsupported } from "../../core/fields.ts";
import { anthropicImageSource } from "../shared/images.ts";
import { toolChoiceFromChat } from "../shared/tool-choice.ts";
import { anthropicWebSearchFromChat } from "../shared/web-search.ts";
import { chatOnlyFields } from "./refused-fields.ts";
import type { DroppedParams } from "../../core/drops.ts";

const HANDLED = new Set([
  "model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "stop", "temperature", "top_p",
  "user", "safety_identifier", "tools", "tool_choice", "parallel_tool_calls", "reasoning_effort", "response_format",
  // Checked in refused-fields.ts: dropped or refused unless at values that change nothing.
  "n", "logprobs", "top_logprobs", "frequency_penalty", "presence_penalty", "logit_bias", "store", "metadata", "seed", "service_tier", "modalities",
  "audio", "prediction", "verbosity", "web_search_options", "functions", "function_call", "prompt_cache_key", "prompt_cache_retention",
  "prompt_cache_options", "moderation",
]);

/**
 * A Chat Completions request -> an Anthropic Messages request (model still the public name).
 * `outputBound` is the request's one output bound (limits/output-bound.ts), sent as the only limit.
 */
export function messagesRequestFromChat(chat: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  refuseUnhandledFields(chat, HANDLED, ANTHROPIC_MESSAGES);
  chatOnlyFields(chat, dropped);
  const { system, turns } = convertMessages(list(chat.messages), dropped);
  const body: Record<string, unknown> = {
    model: chat.model,
    // Exactly what was reserved: max_completion_tokens over max_tokens, capped, or the model's maximum.
    max_tokens: outputBound,
    messages: turns.finish(),
  };
  const systemPrompt = anthropicSystem(system);
  if (systemPrompt !== undefined) body.system = systemPrompt;
  if (chat.stream === true) body.stream = true;
  const stop = stopSequences(chat.stop);
  if (stop.length > 0) body.stop_sequences = stop;
  const temperature = anthropicTemperature(chat.temperature, dropped);
  if (temperature !== undefined) body.temperature = temperature;
  if (isSet(chat.top_p)) body.top_p = chat.top_p;
  const userId = chat.user ?? chat.safety_identifier;
  if (typeof userId === "string") body.metadata = { user_id: userId };
  if (chat.service_tier === "auto" || chat.service_tier === "default") body.service_tier = chat.service_tier === "auto" ? "auto" : "standard_only";
  const tools = list(chat.tools).map((tool, index) => chatTool(tool, `tools[${index}]`));
  anthropicTools(body, tools, isSet(chat.tool_choice) ? toolChoiceFromChat(chat.tool_choice) : null, chat.parallel_tool_calls, dropped);
  // Web search is no function tool in Chat Completions (a tool choice never names it): Anthropic's
  // own server tool, offered after the client's tools.
  if (isSet(chat.web_search_options)) {
    const search = anthropicWebSearchFromChat(chat.web_search_options, dropped);
    // Anthropic refuses two tools of one name; the server tool's name is fixed.
    if (tools.some((tool) => tool.name === search.name)) throw unsupported("web_search_options", `a function tool is already named ${String(search.name)}, the name Anthropic's web search tool takes`);
    body.tools = [...list(body.tools), search];
  }
  anthropicOutputConfig(body, chat.reasoning_effort, "reasoning_effort", jsonSchema(chat.response_format));
  return body;
}

/** `stop` is a string or an array; Anthropic's stop_sequences is always an array (new-api #7175). */
function stopSequences(value: unknown): string[] {
  if (!isSet(value)) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  throw invalid("stop", "expected a string or an array of strings");
}

function chatTool(value: unknown, field: string): Record<string, unknown> {
  const tool = asRecord(value);
  if (tool?.type !== "function") throw unsupported(`${field}.type`, `${String(tool?.type)} tools have no Anthropic equivalent`);
  const fn = asRecord(tool.function);
  if (!fn) throw invalid(`${field}.function`, "expected a function definition");
  return anthropicTool(fn, `${field}.function`);
}

function jsonSchema(value: unknown): Record<string, unknown> | null {
  const format = asRecord(value);
  switch (format?.type) {
    case undefined:
    case "text":
      return null;
    case "json_schema": {
      const schema = asRecord(asRecord(format.json_schema)?.schema);
      if (!schema) throw invalid("response_format.json_schema.schema", "expected a JSON schema");
      return schema;
    }
    case "json_object":
      throw unsupported("response_format", "json_object mode has no Anthropic equivalent; send a json_schema format");
    default:
      throw invalid("response_format.type", "expected text, json_schema or json_object");
  }
}

/**
 * The conversation: leading system/developer messages become `system`; a later one stays a system
 * message in its place (Anthropic's mid-conversation system message), which the request drops fold
 * into `<system-reminder>` user text for a model without them (relay/request-drops.ts).
 */
function convertMessages(messages: unknown[], dropped: DroppedParams): { system: string[]; turns: AnthropicTurns } {
  const system: string[] = [];
  const turns = new AnthropicTurns();
  messages.forEach((raw, index) => {
    const path = `messages[${index}]`;
    const message = asRecord(raw);
    if (!message) throw invalid(path, "expected an object");
    if (isSet(message.name)) dropped.drop(`${path}.name`, "participant names have no Anthropic equivalent");
    switch (message.role) {
      case "system":
      case "developer": {
        const texts = contentTexts(message.content, `${path}.content`);
        if (turns.messages.length > 0) turns.system(texts.flatMap(textBlock));
        else system.push(...texts);
        return;
      }
      case "user":
        turns.add("user", userBlocks(message.content, `${path}.content`, dropped));
        return;
      case "assistant":
        turns.add("assistant", assistantBlocks(message, path));
        return;
      case "tool":
        turns.add("user", [toolResult(message, path)]);
        return;
      case "function":
        throw unsupported(`${path}.role`, "legacy function messages have no Anthropic equivalent; use tool messages");
      default:
        throw invalid(`${path}.role`, "expected system, developer, user, assistant or tool");
    }
  });
  return { system, turns };
}

/** Text-only content (system, tool, assistant): a string or text parts. */
function contentTexts(content: unknown, path: string): string[] {
  if (typeof content === "string") return [content];
  return list(content).map((raw, index) => {
    const part = asRecord(raw);
    if (part?.type === "text" && typeof part.text === "string") return part.text;
    if (part?.type === "refusal" && typeof part.refusal === "string") return part.refusal;
    throw unsupported(`${path}[${index}]`, `${String(part?.type)} parts are not accepted here`);
  });
}

function userBlocks(content: unknown, path: string, dropped: DroppedParams): AnthropicBlock[] {
  if (typeof content === "string") return textBlock(content);
  if (!Array.isArray(content)) throw invalid(path, "expected a string or an array of content parts");
  return content.flatMap((raw, index): AnthropicBlock[] => {
    const part = asRecord(raw);
    const field = `${path}[${index}]`;
    switch (part?.type) {
      case "text":
        if (typeof part.text !== "string") throw invalid(`${field}.text`, "expected a string");
        return textBlock(part.text);
      case "image_url": {
        // `detail` picks OpenAI's resize policy; Anthropic sizes images itself, the image is the same.
        const image = asRecord(part.image_url);
        if (isSet(image?.detail) && image?.detail !== "auto") dropped.drop(`${field}.image_url.detail`, "Anthropic-shape models size images themselves");
        return [{ type: "image", source: anthropicImageSource(image?.url, `${field}.image_url.url`) }];
      }
      case "input_audio":
      case "file":
        throw unsupported(field, `${part.type} parts have no Anthropic equivalent`);
      default:
        throw invalid(`${field}.type`, "expected text or image_url");
    }
  });
}

function assistantBlocks(message: Record<string, unknown>, path: string): AnthropicBlock[] {
  if (isSet(message.function_call)) throw unsupported(`${path}.function_call`, "legacy function calls have no Anthropic equivalent; use tool_calls");
  if (isSet(message.audio)) throw unsupported(`${path}.audio`, "audio has no Anthropic equivalent");
  // Thinking blocks this gateway returned (`thinking_blocks`) go back first, signatures intact.
  const thinking = list(message.thinking_blocks).map((raw, index) => {
    const block = asRecord(raw);
    if (block?.type !== "thinking" && block?.type !== "redacted_thinking") throw invalid(`${path}.thinking_blocks[${index}]`, "expected a thinking block");
    return block;
  });
  const texts = isSet(message.content) ? contentTexts(message.content, `${path}.content`) : [];
  if (typeof message.refusal === "string" && !isSet(message.content)) texts.push(message.refusal);
  const calls = list(message.tool_calls).map((raw, index) => toolUse(raw, `${path}.tool_calls[${index}]`));
  return [...thinking, ...textBlock(texts.join("")), ...calls];
}

function toolUse(raw: unknown, field: string): AnthropicBlock {
  const call = asRecord(raw);
  const fn = asRecord(call?.function);
  if (call?.type !== undefined && call.type !== "function") throw unsupported(`${field}.type`, `${String(call.type)} tool calls have no Anthropic equivalent`);
  if (typeof call?.id !== "string" || typeof fn?.name !== "string") throw invalid(field, "expected id and function.name");
  const input = typeof fn.arguments === "string" ? asRecord(tryJson(fn.arguments)) : null;
  if (!input) throw invalid(`${field}.function.arguments`, "expected a JSON object");
  return { type: "tool_use", id: call.id, name: fn.name, input };
}

function toolResult(message: Record<string, unknown>, path: string): AnthropicBlock {
  if (typeof message.tool_call_id !== "string") throw invalid(`${path}.tool_call_id`, "expected a string");
  const content = typeof message.content === "string" ? message.content : contentTexts(message.content, `${path}.content`).map((text) => ({ type: "text", text }));
  return { type: "tool_result", tool_use_id: message.tool_call_id, content };
}
