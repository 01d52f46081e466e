import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";

/**
 * The client's address as Express's `trust proxy` finds it (proxy-addr, the same library): the
 * socket's peer, or, when that peer is trusted (a load balancer, an ingress), the nearest address in
 * `x-forwarded-for` that is not. Built once per process from TRUST_PROXY's entries.
 */
export function clientAddressResolver(trusted: readonly string[]): (request: IncomingMessage) => string {
  const trust = proxyAddr.compile([...trusted]);
  return (request) => {
    const peer = request.socket.remoteAddress ?? "";
    // The common case (a client straight on the socket) costs no header parsing.
    if (trusted.length === 0 || request.headers["x-forwarded-for"] === undefined) return peer;
    return proxyAddr(request, trust);
  };
}
