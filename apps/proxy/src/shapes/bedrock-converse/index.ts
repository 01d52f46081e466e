import type { ShapeEntry } from "../index.ts";
import { answerFromConverse } from "./reader/response.ts";
import { ConverseStreamReader } from "./reader/stream.ts";
import { accepts } from "./writer/accepts.ts";
import { writeRequest } from "./writer/request.ts";
import { converse } from "./wire.ts";

/**
 * Bedrock Converse seen from outside (shapes/index.ts lists it): upstream side only. Any model on
 * Bedrock (Nova, Llama, Mistral, Claude...) through one body: the request writer, the response
 * and stream readers; every client shape reaches it by `pairTranslation`.
 */
export const bedrockConverse: ShapeEntry = {
  id: "converse",
  upstream: {
    kind: "bedrock-converse",
    wire: converse,
    accepts,
    writeRequest,
    readResponse: answerFromConverse,
    streamReader: (sink, callIdPrefix) => new ConverseStreamReader(sink, callIdPrefix),
  },
};
