import { asRecord, tryJson } from "./request-fields.ts";

/**
 * OpenAI tool-call arguments (a JSON string) -> an Anthropic `input` object. Arguments cut short
 * (a `length` finish) are not JSON: they become `{}` rather than failing the whole answer, the
 * way a bad chunk becomes a value; the stop reason already tells the caller it was truncated.
 */
export function toolInputFromArguments(value: unknown): Record<string, unknown> {
  return asRecord(typeof value === "string" ? tryJson(value) : value) ?? {};
}

/** An Anthropic `input` -> OpenAI's arguments string. */
export function argumentsFromToolInput(input: unknown): string {
  return JSON.stringify(input ?? {});
}
