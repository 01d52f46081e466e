import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Usage } from "@gateway/contracts";
import { estimateUsage } from "./usage-estimate.ts";

const count = fc.nat(1_000_000);
const usage: fc.Arbitrary<Usage> = fc.record({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count,
  cacheWriteTokens: count,
  cacheWrite1hTokens: count,
  reasoningTokens: count,
  images: count,
  webSearchRequests: count,
});

describe("estimateUsage", () => {
  it("is never below the output relayed nor below any usage the upstream reported, and keeps the reported input as is", () => {
    fc.assert(
      fc.property(count, fc.option(usage, { nil: null }), count, (requestBytes, reported, relayed) => {
        const estimate = estimateUsage(requestBytes, reported, relayed);
        expect(estimate.outputTokens).toBeGreaterThanOrEqual(relayed);
        expect(estimate.outputTokens).toBe(Math.max(relayed, reported?.outputTokens ?? 0));
        if (reported === null) expect(estimate.inputTokens).toBe(Math.ceil(requestBytes / 4));
        else expect({ ...estimate, outputTokens: reported.outputTokens }).toEqual(reported);
      }),
    );
  });
});
