import { isSet, unsupported } from "./fields.ts";

/**
 * The drop-or-refuse rule (contract section 11), in one place. A field with no equivalent on the
 * other side that only tunes the answer is dropped and its path listed in the response header
 * `x-gateway-dropped-params`; under `strict_params` it is refused instead (400 naming it). A field
 * whose loss would change what the client gets back is never passed here: it is `unsupported(...)`.
 * The table of both lists is in shapes/README.md.
 */
export class DroppedParams {
  readonly paths: string[] = [];
  readonly strict: boolean;

  constructor(strict: boolean) {
    this.strict = strict;
  }

  /** Drops `path` (a JSON path of the client's request, e.g. `messages[2].content[0].cache_control`). */
  drop(path: string, why: string): void {
    if (this.strict) throw unsupported(path, `${why}; strict_params is on, so it is refused instead of dropped`);
    if (!this.paths.includes(path)) this.paths.push(path);
  }

  /** Drops `record[field]` (listed as `${prefix}${field}`) when it is set; true when it was. */
  dropIfSet(record: Record<string, unknown> | null | undefined, field: string, prefix: string, why: string): boolean {
    if (!record || !isSet(record[field])) return false;
    this.drop(`${prefix}${field}`, why);
    return true;
  }
}

/** The response header that lists what the gateway removed from the request. */
export const DROPPED_PARAMS_HEADER = "x-gateway-dropped-params";

/** The header's value: the paths deduplicated in order, comma+space separated; null when none. */
export function droppedParamsHeaderValue(paths: readonly string[]): string | null {
  if (paths.length === 0) return null;
  return [...new Set(paths)].join(", ");
}

/**
 * `models[].drop_params`: top-level fields removed before any upstream call (models that reject
 * them), same shape too. Returns the body unchanged (same object) when none of them is present, so
 * the client's bytes can still be relayed as they came.
 */
export function withoutFields(body: Record<string, unknown>, fields: readonly string[]): { body: Record<string, unknown>; removed: string[] } {
  const removed = fields.filter((field) => body[field] !== undefined);
  if (removed.length === 0) return { body, removed };
  const copy = { ...body };
  for (const field of removed) delete copy[field];
  return { body: copy, removed };
}
