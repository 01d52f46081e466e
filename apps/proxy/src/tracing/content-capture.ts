import type { Attributes } from "@opentelemetry/api";
import type { EndpointName, ParsedRequest } from "../core/wire-format.ts";
import { asRecord } from "../core/request-fields.ts";

/**
 * Prompt and completion content on spans, only with OTEL_CAPTURE_CONTENT=true (contract section
 * 20): `gen_ai.input.messages`, `gen_ai.system_instructions` and `gen_ai.output.messages` as JSON
 * strings in the conventions' message schema (role + parts; text parts carry their content, other
 * parts only their type). Bounded: the text kept per attribute is at most CONTENT_LIMIT characters.
 */
export const CONTENT_LIMIT = 16 * 1024;

interface Part {
  type: string;
  content?: string;
}

/** What is left of one attribute's text allowance. */
class Allowance {
  private left = CONTENT_LIMIT;

  take(text: string): string {
    const kept = text.length > this.left ? text.slice(0, this.left) : text;
    this.left -= kept.length;
    return kept;
  }
}

function parts(content: unknown, allowance: Allowance): Part[] {
  if (typeof content === "string") return [{ type: "text", content: allowance.take(content) }];
  if (!Array.isArray(content)) return [];
  return content.map((item): Part => {
    const part = asRecord(item);
    if (typeof part?.text === "string") return { type: "text", content: allowance.take(part.text) };
    return { type: typeof part?.type === "string" ? part.type : "unknown" };
  });
}

function messages(list: unknown, allowance: Allowance): { role: string; parts: Part[] }[] {
  if (typeof list === "string") return [{ role: "user", parts: parts(list, allowance) }];
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const message = asRecord(item);
    const role = typeof message?.role === "string" ? message.role : typeof message?.type === "string" ? message.type : "user";
    return { role, parts: parts(message?.content, allowance) };
  });
}

/** The client's prompt as span attributes (its own shape's fields). */
export function inputContent(request: ParsedRequest, endpoint: EndpointName, attributes: Attributes): void {
  const body = request.body;
  switch (endpoint) {
    case "chat.completions":
      attributes["gen_ai.input.messages"] = JSON.stringify(messages(body.messages, new Allowance()));
      break;
    case "messages":
    case "messages.count_tokens":
      attributes["gen_ai.input.messages"] = JSON.stringify(messages(body.messages, new Allowance()));
      if (body.system !== undefined) attributes["gen_ai.system_instructions"] = JSON.stringify(parts(body.system, new Allowance()));
      break;
    case "responses":
      attributes["gen_ai.input.messages"] = JSON.stringify(messages(body.input, new Allowance()));
      if (typeof body.instructions === "string") attributes["gen_ai.system_instructions"] = JSON.stringify(parts(body.instructions, new Allowance()));
      break;
    case "images.generations":
      if (typeof body.prompt === "string") attributes["gen_ai.input.messages"] = JSON.stringify(messages(body.prompt, new Allowance()));
      break;
    case "embeddings":
    case "gemini.generate_content":
    case "gemini.count_tokens":
    case "gemini.embed_content":
      break;
    default: {
      const never: never = endpoint;
      throw new Error(`unknown endpoint ${String(never)}`);
    }
  }
}

/** The answer's text (already bounded by the reader) as `gen_ai.output.messages`. */
export function outputContent(output: string, finishReasons: readonly string[]): string {
  return JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: output }], finish_reason: finishReasons[0] ?? "" }]);
}
