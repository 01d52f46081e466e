import { randomUUID } from "node:crypto";

/**
 * Ids the gateway invents for objects the upstream's shape has no id for (Responses output items,
 * a chat chunk id from an Anthropic message id). Prefixed as the client's shape names them.
 */
export function itemId(prefix: "msg_" | "fc_" | "rs_" | "resp_" | "chatcmpl-" | "call_" | "toolu_"): string {
  return `${prefix}${randomUUID().replaceAll("-", "")}`;
}

/** Re-prefixes an upstream id (`chatcmpl-abc` -> `msg_abc`) so it stays traceable to the upstream's own. */
export function derivedId(prefix: "msg_" | "chatcmpl-" | "resp_", upstreamId: unknown): string {
  if (typeof upstreamId !== "string" || upstreamId.length === 0) return itemId(prefix);
  return prefix + upstreamId.replace(/^(chatcmpl-|msg_|resp_)/, "");
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
