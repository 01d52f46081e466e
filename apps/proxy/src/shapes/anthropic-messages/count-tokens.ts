import { EMPTY_USAGE } from "@gateway/contracts";
import type { WireFormat } from "../../core/wire-format.ts";
import { parseMessagesBody } from "./wire.ts";

/**
 * POST /v1/messages/count_tokens: a Messages body without `max_tokens`, answered
 * `{"input_tokens": N}` by the upstream as it is (never billed, so it reports no usage).
 */
export const messagesCountTokens: WireFormat = {
  endpoint: "messages.count_tokens",
  shape: "anthropic",
  upstreamPath: "/v1/messages/count_tokens",
  // The answer is one JSON object whatever the body says; other fields are the upstream's to judge.
  parse: (body) => ({ ...parseMessagesBody(body, false), stream: false }),
  upstreamBody: (request, upstreamModel) => (request.body.model === upstreamModel ? null : { ...request.body, model: upstreamModel }),
  usageFromResponse: () => EMPTY_USAGE,
  createStreamTracker() {
    throw new Error("messages.count_tokens has no stream");
  },
  streamErrorEvent: () => "",
};
