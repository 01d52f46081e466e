import type { ShapeEntry } from "../index.ts";
import { readRequest } from "./reader/request.ts";
import { answerFromGemini } from "./reader/response.ts";
import { GeminiStreamReader } from "./reader/stream.ts";
import { writeRequest } from "./writer/request.ts";
import { accepts } from "./writer/accepts.ts";
import { geminiResponseFromAnswer, includesThoughts } from "./writer/response.ts";
import { GeminiStreamWriter } from "./writer/stream.ts";
import { generateContent } from "./wire.ts";

/**
 * The Gemini shape seen from outside (shapes/index.ts lists it): the client side reads a
 * generateContent body and writes Google's answers and streams; the upstream side writes a
 * generateContent body and reads Google's answers and streams. Every pair with the other shapes
 * is composed from these by shapes/index.ts (`pairTranslation`).
 */
export const gemini: ShapeEntry = {
  id: "gemini",
  client: {
    endpoint: "gemini.generate_content",
    native: (upstream) => upstream.shape === "gemini",
    readRequest,
    writeResponse: geminiResponseFromAnswer,
    streamWriter: (client) => new GeminiStreamWriter(client.model, includesThoughts(client)),
    callIdPrefix: "call_",
  },
  upstream: {
    kind: "gemini",
    wire: generateContent,
    accepts,
    writeRequest,
    readResponse: answerFromGemini,
    streamReader: (sink, callIdPrefix) => new GeminiStreamReader(sink, callIdPrefix),
  },
};
