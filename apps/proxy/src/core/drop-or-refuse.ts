import type { DroppedParams } from "./drops.ts";
import { unsupported } from "./fields.ts";
import type { Feature, RequestAccepts, Verdict } from "./neutral-request.ts";

/**
 * The drop-or-refuse rule (contract section 11) applied to one feature the client used, at `path`
 * in its body: the target writer's `accepts` table says whether it takes it (true), or drops it
 * (listed in `x-gateway-dropped-params`, refused under strict_params: false) or refuses it (a 400
 * naming the path). The one place a request feature's fate is decided; the sentences live in the
 * writers' tables. `otherwise`: the verdict when the table names no such feature, for a feature the
 * neutral request has no place for (a passenger: a target that does not list it cannot take it).
 */
export function dropOrRefuse(context: { drops: DroppedParams; accepts: RequestAccepts }, feature: Feature, path: string, otherwise?: Verdict): boolean {
  const verdict = context.accepts.refuses[feature] ?? otherwise;
  if (verdict === undefined) return true;
  if (verdict.verdict === "refuse") throw unsupported(path, verdict.why);
  context.drops.drop(path, verdict.why);
  return false;
}

/** A passenger's fallback: dropped, listed, with the reader's sentence. */
export function dropped(why: string): Verdict {
  return { verdict: "drop", why };
}

/** An answer the client asked for that a target without it cannot give: refused, with the reader's sentence. */
export function refused(why: string): Verdict {
  return { verdict: "refuse", why };
}
