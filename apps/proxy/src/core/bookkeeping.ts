import type { DroppedParams } from "./drops.ts";
import { isSet, unsupported } from "./fields.ts";

/**
 * Top-level fields no direction reads that carry only the client's own bookkeeping: ids and
 * metadata it tags its requests with (Codex 0.171 always sends `client_metadata` with its thread,
 * turn and session ids). They never tune the answer, so across shapes they are dropped and listed
 * (contract section 15: metadata is never a reason to fail), refused only under strict_params.
 */
const BOOKKEEPING_NAMES: ReadonlySet<string> = new Set([
  "client_metadata",
  "request_metadata",
  "session_id",
  "thread_id",
  "turn_id",
  "trace_id",
  "span_id",
  "request_id",
  "client_request_id",
  "correlation_id",
  "installation_id",
  "tags",
]);

/** `x-codex-...`, `x_trace`: the extension prefix; `foo_metadata`: metadata by its name. */
const BOOKKEEPING_PATTERN = /^x[-_]|_metadata$/i;

/** True for a top-level field name that is clearly the client's bookkeeping (never `metadata` itself: each direction reads that). */
export function isBookkeepingField(field: string): boolean {
  return BOOKKEEPING_NAMES.has(field) || BOOKKEEPING_PATTERN.test(field);
}

/**
 * The body without its unread bookkeeping fields, each listed in `dropped`; the same object when
 * it has none. Runs before a direction's own field checks, which then never see them.
 */
export function withoutBookkeeping(body: Record<string, unknown>, dropped: DroppedParams): Record<string, unknown> {
  const found = Object.keys(body).filter((field) => isBookkeepingField(field) && isSet(body[field]));
  if (found.length === 0) return body;
  const copy = { ...body };
  for (const field of found) {
    dropped.drop(field, "it carries only the client's bookkeeping, which the other side has no field for");
    delete copy[field];
  }
  return copy;
}

/**
 * The cross-shape rule for top-level fields a direction does not read: bookkeeping is dropped and
 * listed; anything else is refused, naming it, since the gateway cannot tell whether losing it
 * changes the answer (the provider itself refuses a parameter it does not know). Fields the
 * client's own API defines are read by each direction (handled), dropped or refused there.
 */
export function screenUnhandledFields(body: Record<string, unknown>, handled: ReadonlySet<string>, upstream: string, dropped: DroppedParams): void {
  for (const [field, value] of Object.entries(body)) {
    if (handled.has(field) || !isSet(value)) continue;
    if (isBookkeepingField(field)) dropped.drop(field, "it carries only the client's bookkeeping, which the other side has no field for");
    else throw unsupported(field, `not supported when the model is served by ${upstream}`);
  }
}
