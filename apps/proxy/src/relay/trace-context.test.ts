import { describe, expect, it } from "vitest";
import { upstreamTraceparent } from "./trace-context.ts";

describe("upstreamTraceparent", () => {
  it("continues the client's trace with a new parent id and the same flags", () => {
    const client = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const sent = upstreamTraceparent(client);
    expect(sent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(sent).not.toBe(client);
  });

  it("starts a new sampled trace when the client sent none or a malformed one", () => {
    expect(upstreamTraceparent(undefined)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(upstreamTraceparent("garbage")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(upstreamTraceparent(`00-${"0".repeat(32)}-00f067aa0ba902b7-01`)).not.toContain("0".repeat(32));
  });
});
