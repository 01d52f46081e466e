import { asRecord } from "../../upstreams/request-fields.ts";
import type { DroppedParams } from "../../core/drops.ts";
import { invalid, isSet, list } from "../../core/fields.ts";
import { ANTHROPIC_WEB_SEARCH_NAME, isAnthropicWebSearchTool } from "../../shapes/anthropic-messages/web-search.ts";

export { ANTHROPIC_WEB_SEARCH_NAME, isAnthropicWebSearchTool };

/**
 * Responses web search tools (openai-node `WebSearchTool` and `WebSearchPreviewTool`). Codex sends
 * `{type: "web_search", external_web_access: false}`. On an Anthropic-shape target they become
 * Anthropic's own server tool, which the upstream runs and bills per search
 * (`usage.server_tool_use.web_search_requests`, read by upstreams/anthropic/usage.ts); a target
 * without a web search tool (Chat Completions) drops them, listed.
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 */
export const WEB_SEARCH_TOOL_TYPES: ReadonlySet<string> = new Set(["web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11"]);


export function isWebSearchTool(tool: Record<string, unknown> | null): boolean {
  return typeof tool?.type === "string" && WEB_SEARCH_TOOL_TYPES.has(tool.type);
}


/** True when the request has a web search tool (the answer may then hold web_search_call items). */
export function hasWebSearchTool(request: Record<string, unknown>): boolean {
  return list(request.tools).some((tool) => isWebSearchTool(asRecord(tool)));
}

/**
 * A Responses web search tool -> Anthropic's `web_search_20250305`. Allowed domains and the user's
 * location map one to one; `max_tool_calls` (the request's limit on built-in tool calls, of which
 * this is the only one) becomes `max_uses`. OpenAI's search context size and its cached-index
 * mode (`external_web_access: false`) have no equivalent: they only tune the search, and are dropped.
 */
export function anthropicWebSearchTool(tool: Record<string, unknown>, field: string, maxToolCalls: unknown, dropped: DroppedParams): Record<string, unknown> {
  const server: Record<string, unknown> = { type: "web_search_20250305", name: ANTHROPIC_WEB_SEARCH_NAME };
  if (typeof maxToolCalls === "number" && Number.isInteger(maxToolCalls) && maxToolCalls > 0) server.max_uses = maxToolCalls;
  else if (isSet(maxToolCalls) && maxToolCalls !== 0) dropped.drop("max_tool_calls", "Anthropic's web search takes a positive whole max_uses");
  const domains = list(asRecord(tool.filters)?.allowed_domains).filter((domain): domain is string => typeof domain === "string");
  if (domains.length > 0) server.allowed_domains = domains;
  const location = anthropicUserLocation(asRecord(tool.user_location));
  if (location) server.user_location = location;
  dropped.dropIfSet(tool, "search_context_size", `${field}.`, "Anthropic's web search has no context size setting");
  if (tool.external_web_access === false) dropped.drop(`${field}.external_web_access`, "Anthropic's web search has no cached-only mode");
  return server;
}

/** An approximate location (city, region, country, timezone) as Anthropic's `user_location`; none when it names nothing. */
function anthropicUserLocation(location: Record<string, unknown> | null): Record<string, unknown> | undefined {
  if (!location) return undefined;
  const approximate: Record<string, unknown> = { type: "approximate" };
  for (const key of ["city", "region", "country", "timezone"] as const) if (typeof location[key] === "string") approximate[key] = location[key];
  return Object.keys(approximate).length > 1 ? approximate : undefined;
}

/**
 * Chat Completions `web_search_options` (openai-node `ChatCompletionCreateParams.WebSearchOptions`:
 * the search-preview models search the web for the answer) -> Anthropic's `web_search_20250305`
 * server tool, which the upstream runs and bills per search. `user_location.approximate` maps one
 * to one; the search context size only tunes the search and is dropped, listed.
 */
export function anthropicWebSearchFromChat(value: unknown, dropped: DroppedParams): Record<string, unknown> {
  const options = asRecord(value);
  if (!options) throw invalid("web_search_options", "expected an object");
  const server: Record<string, unknown> = { type: "web_search_20250305", name: ANTHROPIC_WEB_SEARCH_NAME };
  const location = anthropicUserLocation(asRecord(asRecord(options.user_location)?.approximate));
  if (location) server.user_location = location;
  dropped.dropIfSet(options, "search_context_size", "web_search_options.", "Anthropic's web search has no context size setting");
  return server;
}
