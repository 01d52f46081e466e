import { GatewayError, isStorableStateId, type StoredConversation, type StoredConversationItem, type StoredResponse } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { internalRoute } from "./internal-route.ts";

const missing = () => new GatewayError("not_found", "Not stored.");
/** An id that cannot be stored (`isStorableStateId`) is a 404 without a query. */
const storedId = (id: unknown): string => {
  const text = String(id);
  if (!isStorableStateId(text)) throw missing();
  return text;
};

/**
 * GET /internal/vendors/{vendor}/responses/{id}: a stored response of that vendor, unexpired, in the
 * queue's own form (contract section 18). The proxy asks here when its Redis copy is gone (the copy
 * is short-lived; Postgres is the store of record); the proxy never reaches the database itself.
 */
export function internalStoredResponseRoute(services: ControlPlaneServices) {
  return internalRoute(services, async (request, response) => {
    const row = await services.db.prisma.storedResponse.findFirst({
      where: { id: storedId(request.params.id), vendorId: String(request.params.vendor), expiresAt: { gt: new Date() } },
      include: { items: { orderBy: [{ kind: "asc" }, { position: "asc" }] } },
    });
    if (!row) throw missing();
    const body: StoredResponse = {
      id: row.id,
      vendorId: row.vendorId,
      apiKeyId: row.apiKeyId,
      conversationId: row.conversationId,
      model: row.model,
      createdAt: row.createdAt.getTime(),
      expiresAt: row.expiresAt.getTime(),
      response: row.response as StoredResponse["response"],
      input: row.items.filter((item) => item.kind === "input").map((item) => item.item as StoredResponse["input"][number]),
      output: row.items.filter((item) => item.kind === "output").map((item) => item.item as StoredResponse["output"][number]),
    };
    response.json(body);
  });
}

/** GET /internal/vendors/{vendor}/conversations/{id}: a conversation of that vendor with its items in order. */
export function internalConversationRoute(services: ControlPlaneServices) {
  return internalRoute(services, async (request, response) => {
    const row = await services.db.prisma.conversation.findFirst({
      where: { id: storedId(request.params.id), vendorId: String(request.params.vendor), expiresAt: { gt: new Date() } },
      include: { items: { orderBy: { position: "asc" } } },
    });
    if (!row) throw missing();
    const conversation: StoredConversation = {
      id: row.id,
      vendorId: row.vendorId,
      apiKeyId: row.apiKeyId,
      metadata: row.metadata as StoredConversation["metadata"],
      createdAt: row.createdAt.getTime(),
      expiresAt: row.expiresAt.getTime(),
    };
    const items: StoredConversationItem[] = row.items.map((item) => ({ id: item.id, position: item.position, item: item.item as StoredConversationItem["item"] }));
    response.json({ conversation, items });
  });
}
