import { GatewayError, newId } from "@gateway/contracts";

export type Item = Record<string, unknown>;

/**
 * A Responses `input` as items: a string is one user message (as the API lists it in
 * `input_items`), an array is kept as sent; anything else is the client's 400.
 */
export function inputItems(input: unknown, param = "input"): Item[] {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  if (!Array.isArray(input)) throw new GatewayError("invalid_body", `${param}: expected a string or an array of items`, { param });
  return input.map((item, index) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw new GatewayError("invalid_body", `${param}[${index}]: expected an object`, { param: `${param}[${index}]` });
    return item as Item;
  });
}

/**
 * The items with an id each, as the API lists them (`input_items`, conversation items): a client's
 * item without one gets `msg_...`. The cursor of a listing is an item's id.
 */
export function withIds(items: readonly Item[]): Item[] {
  return items.map((item) => (typeof item.id === "string" && item.id.length > 0 ? item : { id: newId("msg"), ...item }));
}

/**
 * Stored items as every upstream gets them, statelessly (`store: false`): without the ids the
 * gateway or OpenAI gave them (an id tells OpenAI to look the item up, which with `store: false`
 * finds nothing), and without reasoning items that carry no encrypted content (those can only be
 * replayed by reference).
 */
export function upstreamItems(items: readonly Item[]): Item[] {
  const sent: Item[] = [];
  for (const item of items) {
    if (item.type === "reasoning" && typeof item.encrypted_content !== "string") continue;
    if (!("id" in item)) {
      sent.push(item);
      continue;
    }
    const { id: _id, ...rest } = item;
    sent.push(rest);
  }
  return sent;
}
