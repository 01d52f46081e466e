import { GatewayError } from "@gateway/contracts";
import type { ParsedRequest } from "./wire-format.ts";

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

export function requirePositiveInteger(record: Record<string, unknown>, field: string, max = Number.MAX_SAFE_INTEGER): void {
  const value = record[field];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    const bound = max === Number.MAX_SAFE_INTEGER ? "" : ` at most ${max}`;
    throw invalidField(field, `expected a positive integer${bound}`);
  }
}

/*
 * Checks of what the gateway must read (contract section 15: same shape, the provider judges the
 * rest): the numbers that reach arithmetic on money or are re-serialised (section 14), refused
 * before any upstream call or reservation as the native APIs refuse them. Plain type checks: this
 * is the hot path. An absent or null optional field is "not set", as the SDKs send it; unknown
 * fields, roles and content blocks pass.
 */

export function invalidField(param: string, why: string): GatewayError {
  return new GatewayError("invalid_body", `${param}: ${why}`, { param });
}

const isSet = (value: unknown): boolean => value !== undefined && value !== null;

export function optionalPositiveInteger(record: Record<string, unknown>, field: string, max?: number): void {
  if (isSet(record[field])) requirePositiveInteger(record, field, max);
}

/**
 * An optional integer in [min, max] (a token count, a count of choices, a seed): JSON's `1e400`
 * parses as Infinity and `1.5` is no count, so both are the 400 naming `param`, never arithmetic.
 */
export function optionalInteger(record: Record<string, unknown> | null, field: string, min: number, max = Number.MAX_SAFE_INTEGER, param = field): void {
  const value = record?.[field];
  if (!isSet(value)) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidField(param, max === Number.MAX_SAFE_INTEGER ? `expected an integer of at least ${min}` : `expected an integer from ${min} to ${max}`);
  }
}

/** An optional number (a sampling setting, a penalty): finite, as JSON's `1e400` (Infinity) is not. */
export function optionalFiniteNumber(record: Record<string, unknown>, field: string): void {
  const value = record[field];
  if (isSet(value) && (typeof value !== "number" || !Number.isFinite(value))) throw invalidField(field, "expected a finite number");
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
