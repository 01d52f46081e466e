import type { BodySink, UpstreamCall } from "../../relay/upstream-client.ts";

/** What a provider is sent: the call's path, headers and body rewritten for its URLs and auth. */
export interface DialectCall {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/**
 * A provider kind (contract section 17) as a transport under one of the shapes: the relay builds
 * the shape's call as for any upstream, and the transport moves the model into the provider's URL,
 * adds its auth (a key header, a SigV4 signature, an OAuth token), turns its stream framing into the
 * shape's SSE and its error bodies into the shape's envelope. The core never asks which kind it is.
 */
export interface DialectTransport {
  /** The call as the provider takes it; may sign it or fetch a token first. `stream`: the caller reads a stream. */
  prepare(call: UpstreamCall, stream: boolean): DialectCall | Promise<DialectCall>;
  /** A successful stream's body in the provider's framing, handed on as the shape's SSE. */
  streamSink?(sink: BodySink): BodySink;
  /** A successful JSON answer's body in the shape's own form, when the provider's differs (Bedrock's token count). */
  answerBody?(path: string, body: Buffer): Buffer;
  /** An error status's body in the shape's own envelope (`error.message`, where the adapters read it). */
  errorBody?(status: number, body: Buffer): Buffer;
  /** Hears every error status (an expired token is dropped on a 401). */
  failed?(status: number): void;
  /**
   * The top-level field an error answer says the provider does not take, when the sent body holds
   * it: the call is sent again without it, and the field is listed (compat profiles).
   */
  refusedField?(status: number, body: Buffer, sent: Record<string, unknown>): string | null;
}

/** The upstream call's JSON body as an object (the relay serialised it; a transport that moves fields reads it back). */
export function callBody(call: UpstreamCall): Record<string, unknown> {
  const text = typeof call.body === "string" ? call.body : call.body.toString("utf8");
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the upstream body is not a JSON object");
  return parsed as Record<string, unknown>;
}

/** The body's `model`: the target's own name for it (a deployment, a Bedrock model id or ARN, a Vertex model). */
export function callModel(body: Record<string, unknown>): string {
  if (typeof body.model !== "string" || body.model === "") throw new Error("the upstream body names no model");
  return body.model;
}

/** An error body in Anthropic's envelope (what the anthropic adapter and the SDKs read). */
export function anthropicErrorBody(type: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ type: "error", error: { type, message } }));
}

/** Env values read once per name (`process.env` is a slow native lookup); unset stays unset. */
const values = new Map<string, string>();
export function envValue(name: string): string | null {
  let value = values.get(name);
  if (value === undefined) {
    value = process.env[name];
    if (value === undefined || value === "") return null;
    values.set(name, value);
  }
  return value;
}
