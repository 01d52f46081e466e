// Requests of the hostile-client suite: the three client shapes, bodies written as raw JSON text
// (so a field can hold what JSON.stringify never writes: 1e309, 1e15 as written), and the text a
// client saw in an answer or a stream.
import { request as httpRequest } from "node:http";
import type { HostileModel } from "./hostile-stack.ts";

export type ClientShape = "chat" | "messages" | "responses";
export const CLIENT_SHAPES: readonly ClientShape[] = ["chat", "messages", "responses"];

export const SHAPE_PATH: Record<ClientShape, string> = {
  chat: "/v1/chat/completions",
  messages: "/v1/messages",
  responses: "/v1/responses",
};

/** The output-limit fields each client shape's native API reads. */
export const READ_FIELDS: Record<ClientShape, readonly string[]> = {
  chat: ["max_tokens", "max_completion_tokens"],
  messages: ["max_tokens"],
  responses: ["max_output_tokens"],
};
export const OUTPUT_FIELDS = ["max_tokens", "max_completion_tokens", "max_output_tokens"] as const;
export type OutputField = (typeof OUTPUT_FIELDS)[number];

/** Whether the client's shape is the upstream's (gpt-h is served by an OpenAI-shape upstream, claude-h by an Anthropic one). */
export function isSameShape(shape: ClientShape, model: HostileModel): boolean {
  return model === "gpt-h" ? shape !== "messages" : shape === "messages";
}

/**
 * A request body as JSON text. `fields` holds raw JSON literals (`"1e15"`, `"-3"`, `"\"100\""`),
 * written as given; `content` is the last user text (where the simulator reads its directives).
 */
export function requestBody(shape: ClientShape, model: string, content: string, stream: boolean, fields: Partial<Record<OutputField, string>> = {}): string {
  const raw = Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, literal]) => `,${JSON.stringify(name)}:${literal}`)
    .join("");
  const conversation = shape === "responses" ? `"input":${JSON.stringify(content)}` : `"messages":[{"role":"user","content":${JSON.stringify(content)}}]`;
  return `{"model":${JSON.stringify(model)},"stream":${stream},${conversation}${raw}}`;
}

export function shapeHeaders(shape: ClientShape, key: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  if (shape === "messages") headers["anthropic-version"] = "2023-06-01";
  return headers;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Set when the connection failed or was reset instead of answering. */
  error: string | null;
}

/** One request on a fresh connection; never rejects (a reset is a Reply with `error`). */
export function send(baseUrl: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const call = httpRequest({ hostname, port, method: body === undefined ? "GET" : "POST", path, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8"), error: error.message }));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8"), error: null }));
    });
    call.on("error", (error) => resolve({ status: 0, headers: {}, text: "", error: error.message }));
    call.end(body);
  });
}

/** The error envelope of a refused reply (contract section 2), or null when the body is not one. */
export function envelopeOf(reply: Reply): { type: string; code: string | null; param: string | null } | null {
  try {
    const body = JSON.parse(reply.text) as { type?: string; request_id?: string; error?: { type?: string; code?: string | null; param?: string | null } };
    if (body.type !== "error" || !body.error?.type || body.request_id !== reply.headers["x-request-id"]) return null;
    return { type: body.error.type, code: body.error.code ?? null, param: body.error.param ?? null };
  } catch {
    return null;
  }
}

/** The complete SSE events in `text` (a cut last event is left out), as their data objects. */
export function sseData(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const complete = text.slice(0, text.lastIndexOf("\n\n") + 1);
  for (const block of complete.split("\n\n")) {
    for (const line of block.split("\n")) {
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") continue;
      try {
        events.push(JSON.parse(data) as Record<string, unknown>);
      } catch {
        // not JSON: no text in it
      }
    }
  }
  return events;
}

/** The answer text a client of `shape` saw in the complete events of a stream. */
export function streamedText(shape: ClientShape, text: string): string {
  let out = "";
  for (const event of sseData(text)) {
    if (shape === "chat") {
      const choices = event.choices as { delta?: { content?: unknown } }[] | undefined;
      for (const choice of choices ?? []) if (typeof choice.delta?.content === "string") out += choice.delta.content;
    } else if (shape === "messages") {
      const delta = event.delta as { type?: string; text?: unknown } | undefined;
      if (event.type === "content_block_delta" && delta?.type === "text_delta" && typeof delta.text === "string") out += delta.text;
    } else if (event.type === "response.output_text.delta" && typeof event.delta === "string") {
      out += event.delta;
    }
  }
  return out;
}

/**
 * Words in a text: the simulator answers with whole words, one output token each, so the words a
 * client saw are a lower bound of the output tokens it received (by the upstream's count, and by
 * any tokenizer's: no word of the simulator's list is less than one token).
 */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}
