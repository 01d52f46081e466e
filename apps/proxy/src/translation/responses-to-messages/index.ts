import { WIRE_FORMATS } from "../../upstreams/index.ts";
import type { Translation } from "../types.ts";
import { messagesRequestFromResponses } from "./request.ts";
import { responseFromMessage } from "./response.ts";
import { ResponsesStreamFromMessages } from "./stream.ts";

/** A /v1/responses call served by an Anthropic-shape upstream. */
export const responsesToMessages: Translation = {
  name: "responses-to-messages",
  upstreamWire: WIRE_FORMATS.messages,
  request: (client, dropped) => ({ ...client, body: messagesRequestFromResponses(client.body, dropped, client.outputBound) }),
  response: (upstreamBody, client) => responseFromMessage(upstreamBody, client.body),
  stream: (client) => new ResponsesStreamFromMessages(client.body),
};
