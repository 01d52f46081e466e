import { asRecord, tryJson } from "../../../core/request-fields.ts";
import { CUSTOM_TOOL_SCHEMA } from "../../../core/custom-tools.ts";
import { invalid, isSet, list, unsupported } from "../../../core/fields.ts";
import type { NeutralRequest, Part, RequestWriteContext, Tool, ToolChoice } from "../../../core/neutral-request.ts";
import { anthropicThinkingFromEffort, reasoningLevel } from "../../../core/reasoning.ts";
import { ANTHROPIC_WEB_SEARCH_NAME } from "../web-search.ts";
import { AnthropicTurns, anthropicSystem, textBlock, type AnthropicBlock } from "./turns.ts";

/** The media types Anthropic accepts in a base64 image source. */
const ANTHROPIC_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * The neutral request -> an Anthropic Messages request (model still the public name). The reader
 * already dropped or refused what Anthropic does not take (`./accepts.ts`); this writes the rest in
 * Anthropic's words. `max_tokens` is exactly the request's one output bound (Anthropic requires
 * one). System turns before the conversation are the `system` prompt; a later one stays a system
 * message in its place (Anthropic's mid-conversation system message), which the request drops fold
 * into `<system-reminder>` user text for a model without them (relay/request-drops.ts).
 */
export function writeRequest(request: NeutralRequest, context: RequestWriteContext): Record<string, unknown> {
  const system = request.instructions.map((part) => part.text);
  const turns = new AnthropicTurns();
  for (const turn of request.turns) {
    if (turn.role === "system") {
      const texts = turn.parts.map((part) => {
        if (part.type !== "text") throw unsupported(part.path, "system instructions take text only");
        return part.text;
      });
      if (turns.messages.length > 0) turns.system(texts.flatMap(textBlock));
      else system.push(...texts);
    } else {
      const role = turn.role;
      turns.add(role, turn.parts.flatMap((part) => block(part, role, context)));
    }
  }
  const body: Record<string, unknown> = { model: request.model, max_tokens: context.outputBound, messages: turns.finish() };
  const systemPrompt = anthropicSystem(system);
  if (systemPrompt !== undefined) body.system = systemPrompt;
  if (request.stream) body.stream = true;
  if (request.output.stop) body.stop_sequences = request.output.stop.value;
  if (request.sampling.temperature) {
    if (typeof request.sampling.temperature.value !== "number") throw invalid(request.sampling.temperature.path, "expected a number");
    body.temperature = request.sampling.temperature.value;
  }
  if (request.sampling.topP) body.top_p = request.sampling.topP.value;
  // Anthropic carries one end-user id: `user` when both are set (the reader listed a different second one).
  const userId = request.user?.value ?? request.safetyIdentifier?.value;
  if (userId !== undefined) body.metadata = { user_id: userId };
  if (request.serviceTier?.value === "auto" || request.serviceTier?.value === "default") body.service_tier = request.serviceTier.value === "auto" ? "auto" : "standard_only";
  writeTools(body, request);
  const { thinking, effort } = anthropicThinkingFromEffort(reasoningLevel(request.reasoning), request.reasoning?.path ?? "reasoning");
  if (thinking) body.thinking = thinking;
  const config: Record<string, unknown> = {};
  if (effort) config.effort = effort;
  const format = request.output.format;
  if (format?.value.type === "json_schema") {
    if (!asRecord(format.value.schema)) throw invalid(`${format.path}.schema`, "expected a JSON schema");
    config.format = { type: "json_schema", schema: format.value.schema };
  }
  if (Object.keys(config).length > 0) body.output_config = config;
  return body;
}

function block(part: Part, role: "user" | "assistant", context: RequestWriteContext): AnthropicBlock[] {
  switch (part.type) {
    case "text":
      return textBlock(part.text);
    case "file":
      if (role === "assistant") throw unsupported(part.path, "assistant messages carry no images");
      return [{ type: "image", source: imageSource(part) }];
    case "tool-call": {
      const input = asRecord(tryJson(part.input));
      if (!input) throw invalid(`${part.path}.arguments`, "expected a JSON object");
      return [{ type: "tool_use", id: part.callId, name: part.name, input }];
    }
    case "tool-result":
      return [{ type: "tool_result", tool_use_id: part.callId, content: part.plain ? part.content.map((inner) => (inner.type === "text" ? inner.text : "")).join("") : part.content.flatMap((inner) => block(inner, "user", context)) }];
    case "reasoning":
      // Signed thinking goes back as it came; reasoning another provider signed cannot be verified here.
      if (part.redacted?.origin === "anthropic") return [{ type: "redacted_thinking", data: part.redacted.value }];
      if (part.signature?.origin === "anthropic") return [{ type: "thinking", thinking: part.text, signature: part.signature.value }];
      context.drops.drop(part.path, "reasoning another provider signed cannot be verified by an Anthropic-shape model");
      return [];
    default: {
      const never: never = part;
      return never;
    }
  }
}

/** A neutral image -> an Anthropic image source: inline bytes of the types Anthropic takes, or an http(s) URL it fetches. */
function imageSource(part: Extract<Part, { type: "file" }>): Record<string, unknown> {
  if ("base64" in part.data) {
    const mediaType = part.mediaType.toLowerCase();
    if (!ANTHROPIC_IMAGE_TYPES.has(mediaType)) throw unsupported(part.path, `image type ${mediaType} is not accepted by Anthropic-shape models (jpeg, png, gif, webp)`);
    return { type: "base64", media_type: mediaType, data: part.data.base64 };
  }
  if ("url" in part.data && /^https?:\/\//i.test(part.data.url)) return { type: "url", url: part.data.url };
  throw unsupported(part.path, "only data: and http(s) image URLs can be sent to an Anthropic-shape model");
}

/**
 * Tools, tool choice and parallel calls: the three travel together in Anthropic's request
 * (`parallel_tool_calls: false` is `disable_parallel_tool_use` inside the tool choice).
 */
function writeTools(body: Record<string, unknown>, request: NeutralRequest): void {
  if (request.tools.length === 0) return;
  const tools = request.tools.map(anthropicTool);
  // Anthropic refuses two tools of one name; its web search server tool's name is fixed.
  const search = request.tools.find((tool) => tool.type === "hosted" && tool.kind === "web_search");
  if (search && tools.some((tool) => tool.type === undefined && tool.name === ANTHROPIC_WEB_SEARCH_NAME)) {
    throw unsupported(search.path, `a function tool is already named ${ANTHROPIC_WEB_SEARCH_NAME}, the name Anthropic's web search tool takes`);
  }
  body.tools = tools;
  const disableParallel = request.parallelToolCalls?.value === false;
  if (request.toolChoice || disableParallel) body.tool_choice = anthropicToolChoice(request.toolChoice?.value ?? { type: "auto" }, disableParallel);
}

function anthropicTool(tool: Tool): Record<string, unknown> {
  switch (tool.type) {
    case "function": {
      const out: Record<string, unknown> = { name: tool.name, input_schema: tool.parameters };
      if (tool.description !== undefined) out.description = tool.description;
      if (tool.strict !== undefined) out.strict = tool.strict;
      return out;
    }
    case "freeform":
      return { ...(tool.description === undefined ? { name: tool.name } : { name: tool.name, description: tool.description }), input_schema: CUSTOM_TOOL_SCHEMA };
    case "hosted": {
      if (tool.kind !== "web_search") throw unsupported(tool.path, `${tool.kind} is a built-in tool with no Anthropic equivalent`);
      // Anthropic's own web search server tool, which the upstream runs and bills per search.
      const server: Record<string, unknown> = { type: "web_search_20250305", name: ANTHROPIC_WEB_SEARCH_NAME };
      if (isSet(tool.raw.max_uses)) server.max_uses = tool.raw.max_uses;
      const domains = list(tool.raw.allowed_domains);
      if (domains.length > 0) server.allowed_domains = domains;
      const location = asRecord(tool.raw.user_location);
      if (location) server.user_location = { type: "approximate", ...location };
      return server;
    }
    default: {
      const never: never = tool;
      return never;
    }
  }
}

export function anthropicToolChoice(choice: ToolChoice, disableParallel: boolean): Record<string, unknown> {
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  switch (choice.type) {
    case "auto":
      return { type: "auto", ...parallel };
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any", ...parallel };
    case "function":
      return { type: "tool", name: choice.name, ...parallel };
    default: {
      const never: never = choice;
      return never;
    }
  }
}
