import type { DroppedParams } from "./drops.ts";
import { unsupported } from "./fields.ts";
import type { Feature, RequestAccepts } from "./neutral-request.ts";

/**
 * The drop-or-refuse rule (contract section 11) applied to one feature the client used, at `path`
 * in its body: the target writer's `accepts` table says whether it takes it (true), or drops it
 * (listed in `x-gateway-dropped-params`, refused under strict_params: false) or refuses it (a 400
 * naming the path). The one place a request feature's fate is decided; the sentences live in the
 * writers' tables.
 */
export function dropOrRefuse(context: { drops: DroppedParams; accepts: RequestAccepts }, feature: Feature, path: string): boolean {
  const verdict = context.accepts.refuses[feature];
  if (verdict === undefined) return true;
  if (verdict.verdict === "refuse") throw unsupported(path, verdict.why);
  context.drops.drop(path, verdict.why);
  return false;
}
