import { list } from "../../core/fields.ts";

/** `include: ["web_search_call.action.sources"]`: the result URLs go into each web_search_call item. */
export function wantsWebSearchSources(request: Record<string, unknown>): boolean {
  return list(request.include).includes("web_search_call.action.sources");
}
