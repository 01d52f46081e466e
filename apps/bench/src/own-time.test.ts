import { describe, expect, it } from "vitest";
import { OwnTime, upstreamRequestId } from "./own-time.ts";

describe("own time", () => {
  it("reads the request id from either form of undici's headers", () => {
    expect(upstreamRequestId("content-type: application/json\r\nx-request-id: req_abc\r\ntraceparent: 00-1-2-01\r\n")).toBe("req_abc");
    expect(upstreamRequestId(["content-type", "application/json", "X-Request-Id", "req_def"])).toBe("req_def");
    expect(upstreamRequestId("content-type: application/json\r\n")).toBeNull();
    expect(upstreamRequestId(["x-request-id"])).toBeNull();
  });

  it("takes each request's upstream calls off its time, and leaves out requests that made none", () => {
    const times = new OwnTime();
    times.upstreamCall("a", 2);
    times.upstreamCall("a", 1);
    times.finished("a", 3.5);
    times.finished("b", 9);
    times.upstreamCall("c", 0.25);
    times.finished("c", 1);
    expect(times.own).toEqual([0.5, 0.75]);
    expect(times.total).toEqual([3.5, 1]);
    expect(times.report()).toContain("2 requests: the proxy's own part p50 0.500 / p99 0.750");
  });
});
