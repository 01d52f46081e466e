import { GatewayError } from "@gateway/contracts";
import { addHead, sendJson } from "@gateway/http";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ProxyServices } from "../services.ts";
import { DroppedParams } from "../core/drops.ts";
import { translationBetween } from "../shapes/index.ts";
import { encodingForModel } from "../tokens/count-tokens.ts";
import { resolveStatefulRequest } from "../responses-state/stateful-request.ts";
import { allowedModel } from "./relay-route.ts";
import type { KeyedRouteHandler } from "./route-handler.ts";

/**
 * POST /v1/responses/input_tokens (contract section 18): a Responses request body ->
 * `{"object": "response.input_tokens", "input_tokens": N}`. Counted here like
 * /v1/messages/count_tokens counts on an OpenAI-shape model: the request (its stored
 * `previous_response_id` or `conversation` resolved first, so the count is of what the upstream
 * would get) as the Chat Completions request it translates to, with the model family's tokenizer,
 * on the token-counting worker thread. Never billed; one slot of the key's requests per minute,
 * refused like any request of a key whose quota or budget is spent; bounded by TOKEN_COUNT_MAX_BYTES.
 */
export function responsesInputTokensRoute(services: ProxyServices): KeyedRouteHandler {
  const wire = WIRE_FORMATS.responses;
  return async (request, response, key) => {
    const parsed = wire.parse(request.body);
    const { model, option } = allowedModel(services, key, parsed.model);
    const admission = await services.limiter.admitRequestOnly(request.requestId, key, option);
    for (const name in admission.headers) addHead(response, name, admission.headers[name]!);
    if (admission.refusal) throw admission.refusal;
    const resolved = await resolveStatefulRequest(services.responsesState, key, parsed.body);
    const body = { ...resolved.body, stream: false };
    if (Buffer.byteLength(JSON.stringify(body)) > services.config.TOKEN_COUNT_MAX_BYTES) {
      throw new GatewayError("request_too_large", `Token counting takes requests up to ${services.config.TOKEN_COUNT_MAX_BYTES} bytes.`);
    }
    // Fields that only tune an answer do not change the count: dropped, never refused.
    const chat = translationBetween("responses", "chat").request({ ...parsed, body, stream: false }, new DroppedParams(false));
    const target = services.routing.targets(model)[0];
    const inputTokens = await services.tokenCounter.count(chat.body, encodingForModel(target?.model ?? model.name));
    sendJson(response, 200, { object: "response.input_tokens", input_tokens: inputTokens });
  };
}
