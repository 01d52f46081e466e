import { asRecord } from "../../core/request-fields.ts";
import type { Source } from "../../core/stream-parts.ts";

/**
 * Anthropic's web search server tool, as read from its answers: the results of a
 * `web_search_tool_result` block (null when the search failed: its content is an error object),
 * a `web_search_result_location` citation on a text block, the query of a `server_tool_use`.
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 */
export function searchSources(content: unknown): Source[] | null {
  if (!Array.isArray(content)) return null;
  return content.flatMap((raw) => {
    const result = asRecord(raw);
    return result?.type === "web_search_result" && typeof result.url === "string" ? [{ url: result.url, title: typeof result.title === "string" ? result.title : "" }] : [];
  });
}

/** A text block's citation, when it cites a web page (other citation kinds have no neutral form). */
export function citationSource(raw: unknown): Source | null {
  const citation = asRecord(raw);
  if (citation?.type !== "web_search_result_location" || typeof citation.url !== "string") return null;
  return { url: citation.url, title: typeof citation.title === "string" ? citation.title : "" };
}

/** The search's query from a server_tool_use block's input (an object, or its streamed JSON). */
export function webSearchQuery(input: unknown): string {
  const query = asRecord(input)?.query;
  return typeof query === "string" ? query : "";
}

/** The name Anthropic's web search server tool is called by, in the request and in its server_tool_use blocks. */
export const ANTHROPIC_WEB_SEARCH_NAME = "web_search";

/** An Anthropic web search server tool (`web_search_20250305` and later versions). */
export function isAnthropicWebSearchTool(tool: Record<string, unknown> | null): boolean {
  return typeof tool?.type === "string" && tool.type.startsWith("web_search_");
}
