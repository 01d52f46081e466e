import { GatewayError } from "@gateway/contracts";

/** The one refusal: the other shape cannot express this field; 400 naming it, never a silent drop. */
export function unsupported(field: string, why: string): GatewayError {
  return new GatewayError("unsupported_feature", `${field}: ${why}`, { param: field });
}

/** A field of the wrong form, found while translating (the same-shape path leaves this to the upstream). */
export function invalid(field: string, why: string): GatewayError {
  return new GatewayError("invalid_body", `${field}: ${why}`, { param: field });
}

/** null and undefined both mean "not set": SDKs send explicit nulls for defaults. */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Refuses every top-level field the mapper does not handle. Same-shape calls pass unknown fields
 * through (contract section 1); across shapes there is no one to pass them to, so they are named.
 */
export function refuseUnhandledFields(body: Record<string, unknown>, handled: ReadonlySet<string>, upstream: string): void {
  for (const [field, value] of Object.entries(body)) {
    if (!handled.has(field) && isSet(value)) {
      throw unsupported(field, `not supported when the model is served by ${upstream}`);
    }
  }
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export const OPENAI_CHAT = "an OpenAI-shape upstream (Chat Completions)";
export const ANTHROPIC_MESSAGES = "an Anthropic-shape upstream (Messages)";
