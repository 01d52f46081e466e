import { WIRE_FORMATS } from "../../upstreams/index.ts";
import type { Translation } from "../types.ts";
import { chatRequestFromResponses } from "./request.ts";
import { responseFromChatCompletion } from "./response.ts";
import { ResponsesStreamFromChat } from "./stream.ts";

/** A /v1/responses call served by an OpenAI-shape upstream without the Responses API. */
export const responsesToChat: Translation = {
  name: "responses-to-chat",
  upstreamWire: WIRE_FORMATS["chat.completions"],
  request: (client, dropped) => ({ ...client, body: chatRequestFromResponses(client.body, dropped, client.outputBound) }),
  response: (upstreamBody, client) => responseFromChatCompletion(upstreamBody, client.body),
  stream: (client) => new ResponsesStreamFromChat(client.body),
};
