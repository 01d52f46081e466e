import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddressResolver } from "./client-address.ts";

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } }) as unknown as IncomingMessage;

describe("the client's address behind trusted proxies", () => {
  const resolve = clientAddressResolver(["loopback", "linklocal", "uniquelocal"]);

  it("believes x-forwarded-for only from a trusted peer", () => {
    expect(resolve(request("127.0.0.1", "203.0.113.9"))).toBe("203.0.113.9");
    expect(resolve(request("10.0.0.3", "203.0.113.9"))).toBe("203.0.113.9");
    // A client on the internet cannot pick its own address.
    expect(resolve(request("198.51.100.1", "203.0.113.9"))).toBe("198.51.100.1");
    expect(resolve(request("198.51.100.1"))).toBe("198.51.100.1");
  });

  it("takes the nearest untrusted entry of the chain, so a spoofed first entry does not count", () => {
    expect(resolve(request("10.0.0.3", "203.0.113.9, 10.0.0.5"))).toBe("203.0.113.9");
    expect(resolve(request("10.0.0.3", "6.6.6.6, 203.0.113.9"))).toBe("203.0.113.9");
  });

  it("by default (loopback only) does not believe a peer in a private range: it could rotate its address past the 401 slow-down", () => {
    const byDefault = clientAddressResolver(["loopback"]);
    expect(byDefault(request("127.0.0.1", "203.0.113.9"))).toBe("203.0.113.9");
    expect(byDefault(request("10.0.0.3", "203.0.113.9"))).toBe("10.0.0.3");
    expect(byDefault(request("192.168.1.20", "203.0.113.10"))).toBe("192.168.1.20");
  });

  it("trusts nobody when TRUST_PROXY is false", () => {
    expect(clientAddressResolver([])(request("127.0.0.1", "203.0.113.9"))).toBe("127.0.0.1");
  });
});
