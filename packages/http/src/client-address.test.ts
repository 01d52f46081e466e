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

  it("trusts nobody when TRUST_PROXY is false", () => {
    expect(clientAddressResolver([])(request("127.0.0.1", "203.0.113.9"))).toBe("127.0.0.1");
  });
});
