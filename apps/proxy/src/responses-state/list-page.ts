import { GatewayError } from "@gateway/contracts";

export interface ListPage<Item> {
  object: "list";
  data: Item[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/**
 * One page of a cursor-paginated list, as OpenAI pages `input_items` and conversation items:
 * `limit` 1 to 100 (default 20), `order` `asc` or `desc` (default `desc`: newest first), `after`
 * the id of the item the page starts after (an id not in the list is a 400). `items` are in
 * their own order, oldest first.
 */
export function listPage<Item extends { id?: unknown }>(items: readonly Item[], query: URLSearchParams): ListPage<Item> {
  const limitText = query.get("limit");
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new GatewayError("invalid_body", "limit: expected an integer from 1 to 100", { param: "limit" });
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") throw new GatewayError("invalid_body", "order: expected 'asc' or 'desc'", { param: "order" });
  const ordered = order === "asc" ? items : [...items].reverse();
  let start = 0;
  const after = query.get("after");
  if (after !== null) {
    const index = ordered.findIndex((item) => item.id === after);
    if (index === -1) throw new GatewayError("invalid_body", `after: no item with id '${after}' in this list`, { param: "after" });
    start = index + 1;
  }
  const data = ordered.slice(start, start + limit);
  const idOf = (item: Item | undefined) => (item !== undefined && typeof item.id === "string" ? item.id : null);
  return { object: "list", data, first_id: idOf(data[0]), last_id: idOf(data.at(-1)), has_more: start + limit < ordered.length };
}
