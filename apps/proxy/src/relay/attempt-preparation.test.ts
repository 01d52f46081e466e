// A failure while preparing the upstream call is the gateway's, not the upstream's: it must not
// become a retryable attempt failure (which fails over and counts against the target's circuit),
// and the upstream must not be called.
import { describe, expect, it } from "vitest";
import { AttemptFailure } from "./attempt-failure.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { jsonAttempt } from "./json-attempt.ts";
import { streamAttempt } from "./stream-attempt.ts";

function contextWhosePreparationThrows(calls: string[]): AttemptContext {
  return {
    client: { send: async () => void calls.push("send"), read: async () => void calls.push("read") },
    target: { upstream: { name: "up", shape: "openai", secretEnv: null, firstByteTimeoutMs: 1000 }, model: "m" },
    upstreamWire: { upstreamPath: "/v1/chat/completions", upstreamBody: () => { throw new RangeError("Maximum call stack size exceeded"); } },
    adapter: { headers: () => ({}) },
    clientHeaders: {},
    clientConnection: { gone: false, watch: () => undefined, unwatch: () => undefined },
    requestId: "req_test",
    traceparent: "00-0-0-00",
  } as unknown as AttemptContext;
}

describe("an attempt whose preparation fails", () => {
  for (const [name, attempt] of [["json", jsonAttempt], ["stream", streamAttempt]] as const) {
    it(`${name}: throws the gateway's own error, never a retryable upstream failure, and calls nothing`, async () => {
      const calls: string[] = [];
      const error = await attempt(contextWhosePreparationThrows(calls)).then(() => null, (thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(RangeError);
      expect(error).not.toBeInstanceOf(AttemptFailure);
      expect(calls).toEqual([]);
    });
  }
});
