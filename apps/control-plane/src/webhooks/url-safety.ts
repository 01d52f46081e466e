import { lookup as dnsLookup } from "node:dns";
import { lookup as dnsLookupAsync } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";
import { GatewayError } from "@gateway/contracts";

/**
 * Where a webhook may point (contract section 19): http(s) to a public address. Private, loopback,
 * link-local, unspecified, multicast and reserved ranges, and every address of this host's own
 * interfaces, are refused unless WEBHOOK_ALLOW_PRIVATE=true. The URL is checked when the webhook is
 * created (every address its host resolves to) and again on every delivery, at connect time (the
 * socket's own lookup refuses a name that now resolves elsewhere: DNS rebinding).
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network, unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) NON_PUBLIC.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10],
  ["ff00::", 8], // multicast
] as const) NON_PUBLIC.addSubnet(network, prefix, "ipv6");

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, compatible ::a.b.c.d), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** This host's own interface addresses (read each time: interfaces come and go). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const item of list ?? []) own.add(item.address.toLowerCase().replace(/%.*$/, ""));
  return own;
}

/** Why `address` (an IP literal) may not receive webhooks, or null when it may. */
export function refusedAddress(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return "not an IP address";
  const v4 = family === 6 ? embeddedIpv4(bare) : bare;
  if (v4 !== null && isIP(v4) === 4) {
    if (NON_PUBLIC.check(v4, "ipv4")) return "a private, loopback or link-local address";
  } else if (NON_PUBLIC.check(bare, "ipv6")) return "a private, loopback or link-local address";
  if (ownAddresses().has(bare.toLowerCase())) return "one of the gateway's own addresses";
  return null;
}

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
}

/**
 * The webhook URL as stored, or a 400 naming `url`: an absolute http(s) URL without credentials
 * whose host (a literal, or every address its name resolves to) is public, unless private ones are
 * allowed.
 */
export async function checkWebhookUrl(text: string, policy: UrlPolicy): Promise<string> {
  const refuse = (why: string) => new GatewayError("invalid_body", `url: ${why}`, { param: "url" });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse("not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refuse("must be an http:// or https:// URL");
  if (url.username !== "" || url.password !== "") throw refuse("must not carry credentials");
  if (url.hash !== "") throw refuse("must not have a #fragment");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "") throw refuse("has no host");
  if (!policy.allowPrivate) {
    let addresses: string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      if (host.toLowerCase() === "localhost" || host.toLowerCase().endsWith(".localhost")) throw refuse("points at a loopback address (localhost)");
      try {
        addresses = (await dnsLookupAsync(host, { all: true, verbatim: true })).map((entry) => entry.address);
      } catch {
        throw refuse(`its host ${host} does not resolve`);
      }
    }
    for (const address of addresses) {
      const why = refusedAddress(address);
      if (why !== null) throw refuse(`${host} resolves to ${address}, ${why}; webhooks go to public addresses only`);
    }
  }
  return url.toString();
}

/**
 * A socket `lookup` that refuses non-public addresses (for the deliverer: the address connected to
 * is the one checked, so a name re-pointed after the webhook was created is still refused).
 */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const allowed = policy.allowPrivate ? list : list.filter((entry) => refusedAddress(entry.address) === null);
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves only to non-public addresses`), { code: "EWEBHOOKPRIVATE" });
        return callback(refused, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
