import { GatewayError, type StoredResponse } from "@gateway/contracts";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ProxyServices } from "../services.ts";
import type { KeyedRouteHandler, RouteHandler } from "./route-handler.ts";
import { relayRoute } from "./relay-route.ts";
import { captureAnswer } from "../responses-state/capture-answer.ts";
import { isStateful, resolveStatefulRequest, responseStateFields, type StatefulRequest } from "../responses-state/stateful-request.ts";
import { withIds, type Item } from "../responses-state/items.ts";

const DAY_MS = 86_400_000;

/**
 * POST /v1/responses (contract section 18). A request continuing a stored response
 * (`previous_response_id`) or a conversation is expanded here into its whole `input`, then goes
 * through the relay unchanged (same shape to an OpenAI Responses upstream, or translated), with
 * `store: false` and neither field: every target, after any failover, can continue it. The answer
 * is stored (the API's default `store: true`) from the bytes the client received: the request's
 * whole input, the output, the response object. A `store: false` request continuing nothing is
 * relayed untouched, its bytes as sent.
 */
export function responsesRoute(services: ProxyServices): KeyedRouteHandler {
  const relay = relayRoute(services, WIRE_FORMATS.responses);
  const retentionMs = services.config.RESPONSES_RETENTION_DAYS * DAY_MS;
  return (request, response, key) => {
    const body = request.body as Record<string, unknown> | null;
    if (body === null || typeof body !== "object" || Array.isArray(body) || !isStateful(body)) return relay(request, response, key);
    return resolveStatefulRequest(services.responsesState, key, body).then((resolved) => {
      request.body = resolved.body;
      request.rawBody = Buffer.from(JSON.stringify(resolved.body));
      request.bodyBytes = request.rawBody.length;
      const keeps = resolved.store || resolved.conversation !== null;
      // The client's answer says store, previous_response_id and conversation as it asked; kept as it saw it.
      captureAnswer(response, resolved.body.stream === true, responseStateFields(resolved), keeps ? (answer) => void keep(services, key, resolved, answer, retentionMs) : null);
      return relay(request, response, key, keeps);
    });
  };
}

/** Stores the answer and adds the turn to its conversation; failures are logged (the answer is out). */
async function keep(services: ProxyServices, key: { id: string; vendorId: string }, resolved: StatefulRequest, answer: Record<string, unknown>, retentionMs: number): Promise<void> {
  const output = Array.isArray(answer.output) ? (answer.output as Item[]) : [];
  const id = typeof answer.id === "string" ? answer.id : null;
  const now = Date.now();
  const notKept = (error: unknown) => services.logger.warn({ responseId: id, err: (error as Error).message }, "response state not kept");
  // Both writes start in this tick: this process's next read of either waits for them.
  const appended = resolved.conversation === null ? null : services.responsesState.addConversationItems(resolved.conversation, withIds([...resolved.ownInput, ...output]).map(conversationEntry)).catch(notKept);
  const saved = resolved.store && id !== null ? services.responsesState.saveResponse(storedRecord(key, resolved, answer, id, output, now, retentionMs)) : null;
  await Promise.all([appended, saved]);
}

/** The stored response: the object the client received (captureAnswer gave it the state fields). */
function storedRecord(key: { id: string; vendorId: string }, resolved: StatefulRequest, answer: Record<string, unknown>, id: string, output: Item[], now: number, retentionMs: number): StoredResponse {
  return {
    id,
    vendorId: key.vendorId,
    apiKeyId: key.id,
    conversationId: resolved.conversation?.id ?? null,
    model: typeof answer.model === "string" ? answer.model : "",
    createdAt: now,
    expiresAt: now + retentionMs,
    response: answer,
    input: resolved.input,
    output,
  };
}

function conversationEntry(item: Item): { id: string; item: Item } {
  return { id: String(item.id), item };
}

/**
 * GET /v1/responses without an upgrade: an unknown route, as before. A WebSocket upgrade on this
 * path is answered by the server's upgrade handler (responses-state/websocket.ts), never here.
 */
export const responsesWebSocketRoute: RouteHandler = (request) => {
  throw new GatewayError("route_not_found", `Unknown route: ${request.method} /v1/responses`);
};
