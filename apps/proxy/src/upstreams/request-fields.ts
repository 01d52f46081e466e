import { GatewayError } from "@gateway/contracts";
import type { ParsedRequest } from "./types.ts";

/**
 * Checks the few fields the gateway itself relies on; every other field passes through untouched.
 * Errors name the field (`param`) as the contract's 400 requires.
 */
export function parseRequestFields(body: unknown, required: readonly string[]): ParsedRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new GatewayError("invalid_body", "The request body must be a JSON object.", { param: null });
  }
  const record = body as Record<string, unknown>;
  for (const field of required) {
    if (record[field] === undefined || record[field] === null) {
      throw new GatewayError("invalid_body", `${field}: required`, { param: field });
    }
  }
  if (typeof record.model !== "string" || record.model.length === 0) {
    throw new GatewayError("invalid_body", "model: expected a non-empty string", { param: "model" });
  }
  if (record.messages !== undefined && !Array.isArray(record.messages)) {
    throw new GatewayError("invalid_body", "messages: expected an array", { param: "messages" });
  }
  if (record.stream !== undefined && record.stream !== null && typeof record.stream !== "boolean") {
    throw new GatewayError("invalid_body", "stream: expected a boolean", { param: "stream" });
  }
  return { body: record, model: record.model, stream: record.stream === true };
}

export function requirePositiveInteger(record: Record<string, unknown>, field: string): void {
  const value = record[field];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new GatewayError("invalid_body", `${field}: expected a positive integer`, { param: field });
  }
}

/** Parses JSON that may be malformed; a bad chunk becomes null, not a throw. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
