import { GatewayError, type StoredConversation } from "@gateway/contracts";
import type { KeyRecord } from "@gateway/redis-store";
import { inputItems, upstreamItems, withIds, type Item } from "./items.ts";
import type { ConversationState, ResponsesStateStore } from "./state-store.ts";

/** What a Responses request continues and keeps, once resolved. */
export interface StatefulRequest {
  /** The body every upstream gets: the whole input, `store: false`, no previous_response_id or conversation. */
  body: Record<string, unknown>;
  /** Whether the answer is stored (the API's default `store: true`). */
  store: boolean;
  previousResponseId: string | null;
  conversation: StoredConversation | null;
  /** The whole input with ids (the previous chain, the conversation's items, then the request's own). */
  input: Item[];
  /** The request's own input items (with ids): what a conversation gains besides the output. */
  ownInput: Item[];
}

/** The id a request's `conversation` names: a string or `{ id }`. */
function conversationId(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" && value.length > 0) return value;
  const id = (value as { id?: unknown }).id;
  if (typeof value === "object" && typeof id === "string" && id.length > 0) return id;
  throw new GatewayError("invalid_body", "conversation: expected a conversation id or { id }", { param: "conversation" });
}

/**
 * Whether a Responses body needs the gateway's state: continuing a stored response or a
 * conversation, or stored (the default). A `store: false` request continuing nothing is relayed
 * untouched; so is one whose `input` is not items (same shape, the provider decides: contract
 * section 15), which is then not stored.
 */
export function isStateful(body: Record<string, unknown>): boolean {
  if (body.previous_response_id !== undefined || body.conversation !== undefined) return true;
  const input = body.input;
  return body.store !== false && (input === undefined || input === null || typeof input === "string" || Array.isArray(input));
}

/**
 * Resolves `previous_response_id` (the previous response's whole input, then its output) or
 * `conversation` (its items) into the full `input`, as the Responses API itself would, so the
 * request then goes through the relay unchanged to any target: each upstream gets the whole
 * input, statelessly. An unknown, deleted, expired or other vendor's previous response is the
 * API's own 400 (`previous_response_not_found`); an unknown conversation is a 404.
 */
export async function resolveStatefulRequest(store: ResponsesStateStore, key: KeyRecord, body: Record<string, unknown>): Promise<StatefulRequest> {
  const previous = body.previous_response_id;
  const conversationName = conversationId(body.conversation);
  if (previous !== undefined && previous !== null && conversationName !== null) {
    throw new GatewayError("invalid_body", "previous_response_id and conversation cannot be used together", { param: "conversation" });
  }
  let history: Item[] = [];
  let previousResponseId: string | null = null;
  let conversation: ConversationState | null = null;
  if (previous !== undefined && previous !== null) {
    if (typeof previous !== "string" || previous.length === 0 || previous.length > 200) {
      throw new GatewayError("invalid_body", "previous_response_id: expected a response id", { param: "previous_response_id" });
    }
    const found = await store.response(key.vendorId, previous);
    if (found === null) throw new GatewayError("previous_response_not_found", `Previous response with id '${previous}' not found.`, { param: "previous_response_id" });
    history = [...found.input, ...found.output];
    previousResponseId = previous;
  } else if (conversationName !== null) {
    conversation = await store.conversation(key.vendorId, conversationName);
    if (conversation === null) throw new GatewayError("not_found", `Conversation with id '${conversationName}' not found.`, { param: "conversation" });
    history = conversation.items.map((entry) => entry.item);
  }
  const ownInput = withIds(inputItems(body.input));
  const input = [...history, ...ownInput];
  const { previous_response_id: _previous, conversation: _conversation, ...rest } = body;
  return {
    body: { ...rest, input: upstreamItems(input), store: false },
    store: body.store !== false,
    previousResponseId,
    conversation: conversation?.conversation ?? null,
    input,
    ownInput,
  };
}

/** What a response object of a stateful request says of its state: `Response.store`, `.previous_response_id`, `.conversation`. */
export interface ResponseStateFields {
  store: boolean;
  previous_response_id: string | null;
  conversation: { id: string } | null;
}

/**
 * The state fields as the API shows them, as the client asked: the one place both the live answer
 * (capture-answer.ts) and so the stored copy get them from (every upstream was asked statelessly,
 * so its own response object says `store: false` and no previous id or conversation).
 */
export function responseStateFields(request: StatefulRequest): ResponseStateFields {
  return {
    store: request.store,
    previous_response_id: request.previousResponseId,
    conversation: request.conversation === null ? null : { id: request.conversation.id },
  };
}

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/**
 * A kept Responses request toward a same-shape upstream whose model reasons: its `include` asks
 * for the encrypted reasoning (contract section 18), which the stored output then holds and the
 * next turn replays (items.ts keeps reasoning items only with it). Added per target, never to the
 * client's body: a translated target would list it as dropped. The same request when it is there.
 */
export function withEncryptedReasoning<Request extends { body: Record<string, unknown> }>(request: Request): Request {
  const include = request.body.include;
  const list = Array.isArray(include) ? (include as unknown[]) : [];
  if (list.includes(ENCRYPTED_REASONING)) return request;
  return { ...request, body: { ...request.body, include: [...list, ENCRYPTED_REASONING] } };
}
