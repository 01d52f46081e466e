import { list } from "../../core/fields.ts";

/** `include: ["web_search_call.action.sources"]`: the result URLs go into each web_search_call item. */
export function wantsWebSearchSources(request: Record<string, unknown>): boolean {
  return list(request.include).includes("web_search_call.action.sources");
}

/**
 * Responses web search tools (openai-node `WebSearchTool` and `WebSearchPreviewTool`). Codex sends
 * `{type: "web_search", external_web_access: false}`.
 */
export const WEB_SEARCH_TOOL_TYPES: ReadonlySet<string> = new Set(["web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11"]);

export function isWebSearchTool(tool: Record<string, unknown> | null): boolean {
  return typeof tool?.type === "string" && WEB_SEARCH_TOOL_TYPES.has(tool.type);
}
