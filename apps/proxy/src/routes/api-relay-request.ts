import type { IncomingHttpHeaders } from "node:http";

/**
 * What may be relayed from the proxy's address to the control plane, and how: the paths (only the
 * vendor API and the console, never `/internal/*` by any spelling) and the headers.
 */

export type RelayPattern = "/api/*" | "/console/*" | "/webhooks/*";

/** A path as sent: RFC 3986 path characters only (no `\`, no spaces, nothing outside ASCII). */
const PATH_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
/** What a query may hold: visible ASCII (the control plane's router never reads it). */
const QUERY_CHARACTERS = /^[\x21-\x7e]*$/;

/**
 * The metrics pattern of a request target the proxy relays, or null when it must not be relayed.
 * The path goes to the control plane as sent, so it must not be able to name another route there:
 * no empty segments (`//internal`), no `.` or `..` segments, plain or percent-encoded
 * (`/api/%2e%2e/internal`), no encoded `/` or `\`, no control characters. The prefix matches in any
 * case, as every proxy route does; anything else (absolute-form targets, `/%69nternal`) is unmatched.
 */
export function relayPattern(target: string | undefined): RelayPattern | null {
  if (!target) return null;
  const query = target.indexOf("?");
  const path = query === -1 ? target : target.slice(0, query);
  const lower = path.toLowerCase();
  const pattern = prefixPattern(lower);
  if (!pattern || !PATH_CHARACTERS.test(path) || path.includes("//")) return null;
  if (query !== -1 && !QUERY_CHARACTERS.test(target.slice(query + 1))) return null;
  for (const segment of path.slice(1).split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return null;
    }
    if (decoded === "." || decoded === ".." || /[/\\\x00-\x1f\x7f]/.test(decoded)) return null;
  }
  return pattern;
}

function prefixPattern(lower: string): RelayPattern | null {
  if (lower === "/api" || lower.startsWith("/api/")) return "/api/*";
  if (lower === "/console" || lower.startsWith("/console/")) return "/console/*";
  if (lower.startsWith("/webhooks/")) return "/webhooks/*";
  return null;
}

/**
 * Headers that describe one connection, not the message (RFC 9110 section 7.6.1), plus any the
 * `connection` header names: never relayed either way.
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "te", "trailer"]);

function isHopByHop(name: string, named: Set<string>): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith("proxy-") || named.has(name);
}

function connectionNamed(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set(typeof value === "string" ? value.toLowerCase().split(",").map((name) => name.trim()) : []);
}

/**
 * The client's headers for the control plane. The proxy's own request id and the client's socket
 * address replace whatever the client sent under those names (the control plane believes them
 * only from a trusted proxy); `host` and `expect` are the connection's own, and the internal token
 * is never passed on.
 */
export function requestHeaders(headers: IncomingHttpHeaders, requestId: string, clientAddress: string | undefined): Record<string, string | string[]> {
  const named = connectionNamed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isHopByHop(name, named)) continue;
    if (name === "host" || name === "expect" || name === "x-internal-token" || name === "x-request-id") continue;
    if (name === "forwarded" || name.startsWith("x-forwarded-")) continue;
    out[name] = value;
  }
  out["x-request-id"] = requestId;
  if (clientAddress) out["x-forwarded-for"] = clientAddress;
  return out;
}

/** The control plane's response headers for the client, unchanged but for the connection's own. */
export function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = connectionNamed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !isHopByHop(name, named)) out[name] = value;
  }
  return out;
}
