import type { ServerResponse } from "node:http";
import { GatewayError, newId, type StoredConversation } from "@gateway/contracts";
import { sendJson, type GatewayRequest } from "@gateway/http";
import type { KeyRecord } from "@gateway/redis-store";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";
import { inputItems, withIds } from "../responses-state/items.ts";
import { listPage } from "../responses-state/list-page.ts";
import type { ConversationState } from "../responses-state/state-store.ts";
import type { KeyedRouteHandler, RouteHandler } from "./route-handler.ts";

const DAY_MS = 86_400_000;
const PREFIX = "/v1/conversations";
/** Most items a create or an append takes at once (the API's own bound). */
const MAX_ITEMS = 20;

/** The path's segments after /v1/conversations: [] | [id] | [id, "items"] | [id, "items", itemId]. */
function segments(request: GatewayRequest): string[] {
  const url = request.url ?? "/";
  const query = url.indexOf("?");
  const path = (query === -1 ? url : url.slice(0, query)).replace(/\/+$/, "");
  return path
    .slice(PREFIX.length)
    .split("/")
    .filter((part) => part.length > 0)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

const unknownRoute = (request: GatewayRequest) => new GatewayError("route_not_found", `Unknown route: ${request.method} ${request.url?.split("?")[0]}`);
const conversationNotFound = (id: string) => new GatewayError("not_found", `Conversation with id '${id}' not found.`);

/** A conversation as the API shows it. */
function conversationObject(conversation: StoredConversation) {
  return { id: conversation.id, object: "conversation", created_at: Math.floor(conversation.createdAt / 1000), metadata: conversation.metadata };
}

/** `metadata`: up to 16 string values (keys up to 64 characters, values up to 512), as the API bounds it. */
function metadataOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new GatewayError("invalid_body", "metadata: expected an object of strings", { param: "metadata" });
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 16) throw new GatewayError("invalid_body", "metadata: at most 16 keys", { param: "metadata" });
  for (const [name, text] of entries) {
    if (name.length > 64 || typeof text !== "string" || text.length > 512) {
      throw new GatewayError("invalid_body", `metadata.${name}: expected a string of at most 512 characters (keys at most 64)`, { param: `metadata.${name}` });
    }
  }
  return value as Record<string, string>;
}

function itemsOf(value: unknown, required: boolean): { id: string; item: Record<string, unknown> }[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) throw new GatewayError("invalid_body", "items: expected an array of items", { param: "items" });
  if (value.length > MAX_ITEMS) throw new GatewayError("invalid_body", `items: at most ${MAX_ITEMS} items at once`, { param: "items" });
  return withIds(inputItems(value, "items")).map((item) => ({ id: String(item.id), item }));
}

async function ownConversation(services: ProxyServices, key: KeyRecord, id: string): Promise<ConversationState> {
  const state = await services.responsesState.conversation(key.vendorId, id);
  if (state === null) throw conversationNotFound(id);
  return state;
}

/**
 * GET and DELETE under /v1/conversations (contract section 18): a conversation, its items
 * (cursor-paginated as the API), one item; deleting either. The key's vendor's conversations
 * only: another vendor's id is a 404, as an unknown one.
 */
export function conversationsReadRoute(services: ProxyServices): RouteHandler {
  const store = services.responsesState;
  return async (request: GatewayRequest, response: ServerResponse) => {
    const key = await authenticate(request.headers, services.keyCache);
    const [id, items, itemId, ...rest] = segments(request);
    if (id === undefined || rest.length > 0 || (items !== undefined && items !== "items")) throw unknownRoute(request);
    const remove = request.method === "DELETE";
    if (items === undefined) {
      if (remove) {
        if (!(await store.deleteConversation(key.vendorId, id))) throw conversationNotFound(id);
        sendJson(response, 200, { id, object: "conversation.deleted", deleted: true });
        return;
      }
      sendJson(response, 200, conversationObject((await ownConversation(services, key, id)).conversation));
      return;
    }
    const state = await ownConversation(services, key, id);
    if (itemId === undefined) {
      if (remove) throw unknownRoute(request);
      sendJson(response, 200, listPage(state.items.map((entry) => entry.item), new URL(request.url ?? "/", "http://proxy").searchParams));
      return;
    }
    const entry = state.items.find((candidate) => candidate.id === itemId);
    if (!entry) throw new GatewayError("not_found", `Item with id '${itemId}' not found.`);
    if (remove) {
      await store.deleteConversationItem(state, itemId);
      // The API answers an item's delete with its conversation.
      sendJson(response, 200, conversationObject(state.conversation));
      return;
    }
    sendJson(response, 200, entry.item);
  };
}

/** POST /v1/conversations (create), /v1/conversations/{id} (metadata) and /v1/conversations/{id}/items (append). */
export function conversationsWriteRoute(services: ProxyServices): KeyedRouteHandler {
  const store = services.responsesState;
  const retentionMs = services.config.RESPONSES_RETENTION_DAYS * DAY_MS;
  return async (request, response, key) => {
    const body = request.body as Record<string, unknown>;
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new GatewayError("invalid_body", "Expected a JSON object.");
    const [id, items, ...rest] = segments(request);
    if (rest.length > 0 || (items !== undefined && items !== "items")) throw unknownRoute(request);
    if (id === undefined) {
      const now = Date.now();
      const conversation: StoredConversation = { id: newId("conv"), vendorId: key.vendorId, apiKeyId: key.id, metadata: metadataOf(body.metadata), createdAt: now, expiresAt: now + retentionMs };
      await store.createConversation(conversation, itemsOf(body.items, false));
      sendJson(response, 200, conversationObject(conversation));
      return;
    }
    const state = await ownConversation(services, key, id);
    if (items === undefined) {
      const conversation = { ...state.conversation, metadata: metadataOf(body.metadata) };
      await store.updateConversation(conversation);
      sendJson(response, 200, conversationObject(conversation));
      return;
    }
    const added = await store.addConversationItems(state.conversation, itemsOf(body.items, true));
    const data = added.map((entry) => entry.item);
    sendJson(response, 200, { object: "list", data, first_id: added[0]?.id ?? null, last_id: added.at(-1)?.id ?? null, has_more: false });
  };
}
