// Contract section 14, "streams that end early", on the in-process stack: a client leaves a 300-word
// stream at a generated point, in every client shape, on a same-shape and a translated model.
// An upstream that finishes within the drain is read to its end and the request is billed its exact
// usage (hidden reasoning tokens included), `estimated: false`; one that outlasts the drain is
// aborted and billed an estimate, flagged, never below the words the client received (nor below a
// `message_start`'s partial usage: the Claude stream's `output_tokens: 1` is not the bill).
import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingEvent } from "@gateway/contracts";
import { CLIENT_SHAPES, requestBody, SHAPE_PATH, shapeHeaders, streamedText, wordCount, type ClientShape } from "./hostile-requests.ts";
import { startStack, type Stack } from "./stack.ts";

const WORDS = 300;
const DRAIN_MS = 3000;
/**
 * 300 words 1 ms apart end well within the drain (a loaded machine's timers stretch that to about a
 * second); 25 ms apart, a client leaving before word 100 leaves 5 s or more of stream: well past it.
 */
const FAST_DELAY_MS = 1;
const SLOW_DELAY_MS = 25;

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ DISCONNECT_DRAIN_MS: String(DRAIN_MS) });
  // The cross-shape option: no rate limits, one model on each upstream shape.
  key = (await stack.mintKey({ serverOption: "cross-shape" })).key;
});
afterAll(async () => stack?.close());

interface Leave {
  shape: ClientShape;
  /** claude-on-openai is served by an OpenAI-shape upstream, gpt-on-anthropic by an Anthropic one: each client shape meets one of them translated. */
  model: "claude-on-openai" | "gpt-on-anthropic";
  /** Within the drain: the upstream's final usage is awaited and billed exactly. */
  withinDrain: boolean;
  /** Words read before leaving (0: right after the response head). */
  leaveAfter: number;
  /** Hidden reasoning tokens the upstream reports on top of the words. */
  reasoning: number;
}

const MODELS = ["claude-on-openai", "gpt-on-anthropic"] as const;
const translated = (plan: Pick<Leave, "shape" | "model">) => (plan.shape === "messages") !== (plan.model === "gpt-on-anthropic");

const leave = (withinDrain: fc.Arbitrary<boolean>): fc.Arbitrary<Leave> =>
  fc.record({
    shape: fc.constantFrom(...CLIENT_SHAPES),
    model: fc.constantFrom(...MODELS),
    withinDrain,
    leaveAfter: fc.integer({ min: 0, max: 99 }),
    reasoning: fc.constantFrom(0, 2000),
  });

/** Every run holds a stream that ends within the drain and one that outlasts it, the latter translated, and up to four more of any kind. */
const runs: fc.Arbitrary<Leave[]> = fc
  .tuple(leave(fc.constant(true)), leave(fc.constant(false)), fc.array(leave(fc.boolean()), { maxLength: 4 }))
  .map(([within, beyond, more]) => [within, { ...beyond, model: MODELS.find((model) => translated({ shape: beyond.shape, model }))! }, ...more]);

/** Streams one request and destroys the connection once `leaveAfter` words were read. */
function streamAndLeave(plan: Leave, index: number): Promise<{ requestId: string; status: number; receivedWords: number }> {
  const { hostname, port } = new URL(stack.proxy.url);
  const delay = plan.withinDrain ? FAST_DELAY_MS : SLOW_DELAY_MS;
  const content = `leave ${index} #sim:chunks=${WORDS} #sim:chunk_delay_ms=${delay} #sim:reasoning=${plan.reasoning}`;
  const body = requestBody(plan.shape, plan.model, content, true, plan.shape === "messages" ? { max_tokens: String(WORDS + 10) } : {});
  return new Promise((resolve, reject) => {
    const call = httpRequest({ hostname, port, method: "POST", path: SHAPE_PATH[plan.shape], headers: shapeHeaders(plan.shape, key), agent: false }, (response) => {
      const requestId = String(response.headers["x-request-id"]);
      let text = "";
      let done = false;
      const leaveNow = () => {
        if (done) return;
        done = true;
        const receivedWords = wordCount(streamedText(plan.shape, text));
        call.destroy();
        resolve({ requestId, status: response.statusCode ?? 0, receivedWords });
      };
      if (response.statusCode !== 200 || plan.leaveAfter === 0) return leaveNow();
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        if (wordCount(streamedText(plan.shape, text)) >= plan.leaveAfter) leaveNow();
      });
      response.on("end", leaveNow);
      response.on("error", leaveNow);
    });
    call.on("error", reject);
    call.end(body);
  });
}

async function billed(requestId: string): Promise<BillingEvent> {
  await expect.poll(async () => (await stack.billingEvents(requestId)).length, { timeout: DRAIN_MS + 5_000 }).toBe(1);
  return (await stack.billingEvents(requestId))[0]!;
}

describe("a client that leaves a 300-word stream", () => {
  it("is billed the upstream's exact usage when it ends within the drain, else a flagged estimate never below what it received", async () => {
    const seen = { exact: 0, estimated: 0, translated: 0 };
    await fc.assert(
      fc.asyncProperty(runs, async (plans) => {
        const left = await Promise.all(plans.map((plan, index) => streamAndLeave(plan, index)));
        for (const [index, one] of left.entries()) {
          const plan = plans[index]!;
          const event = await billed(one.requestId);
          const context = `${JSON.stringify(plan)}: received ${one.receivedWords} words, billed ${JSON.stringify(event.usage)} estimated ${event.estimated}`;
          expect(one.status, context).toBe(200);
          expect(event.status, context).toBe("client_aborted");
          expect(event.usage.outputTokens, context).toBeGreaterThanOrEqual(one.receivedWords);
          const upstream = stack.simulator.stats.requests.find((record) => record.headers["x-request-id"] === one.requestId)!;
          if (plan.withinDrain) {
            // Read to its end after the client left: the upstream's own count, hidden reasoning and all.
            expect(upstream.outcome, context).toBe("ok");
            expect(event, context).toMatchObject({ estimated: false, usage: { outputTokens: WORDS + plan.reasoning } });
            seen.exact += 1;
          } else {
            expect(upstream.outcome, context).toBe("aborted");
            // Flagged: what the upstream generated is known only from its final usage. The floor above
            // (the words received) is far above the one token a message_start reports.
            expect(event.estimated, context).toBe(true);
            seen.estimated += 1;
          }
          if (translated(plan)) seen.translated += 1;
        }
      }),
      { numRuns: 5 },
    );
    expect(seen.exact).toBeGreaterThan(0);
    expect(seen.estimated).toBeGreaterThan(0);
    expect(seen.translated).toBeGreaterThan(0);
  }, 60_000);
});

describe("the attack of issue 35: 299 of 300 words read, then the socket dropped, no drain", () => {
  let noDrain: Stack;
  let noDrainKey: string;
  beforeAll(async () => {
    // No drain at all: the upstream is aborted the moment the client goes, so the bill is the estimate.
    noDrain = await startStack({ DISCONNECT_DRAIN_MS: "0" });
    noDrainKey = (await noDrain.mintKey({ serverOption: "cross-shape" })).key;
  });
  afterAll(async () => noDrain?.close());

  it("bills a Claude-shape stream at least the 299 words received, flagged estimated, never message_start's 1 token", async () => {
    const { hostname, port } = new URL(noDrain.proxy.url);
    // gpt-on-anthropic is served by an Anthropic-shape upstream: same shape for a messages client, translated for the others.
    // The three shapes at once (each stream takes 9 s; its last word comes 30 ms after the one the client leaves on).
    await Promise.all(
      CLIENT_SHAPES.map(async (shape) => {
        const body = requestBody(shape, "gpt-on-anthropic", `attack ${shape} #sim:chunks=${WORDS} #sim:chunk_delay_ms=30`, true, shape === "messages" ? { max_tokens: String(WORDS + 10) } : {});
        const left = await new Promise<{ requestId: string; words: number }>((resolve, reject) => {
          const call = httpRequest({ hostname, port, method: "POST", path: SHAPE_PATH[shape], headers: shapeHeaders(shape, noDrainKey), agent: false }, (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => {
              text += chunk;
              const words = wordCount(streamedText(shape, text));
              if (words < WORDS - 1) return;
              call.destroy();
              resolve({ requestId: String(response.headers["x-request-id"]), words });
            });
          });
          call.on("error", reject);
          call.end(body);
        });
        expect(left.words).toBe(WORDS - 1);
        await expect.poll(async () => (await noDrain.billingEvents(left.requestId)).length, { timeout: 5_000 }).toBe(1);
        const [event] = await noDrain.billingEvents(left.requestId);
        expect(event, shape).toMatchObject({ status: "client_aborted", estimated: true });
        expect(event!.usage.outputTokens, shape).toBeGreaterThanOrEqual(WORDS - 1);
        const upstream = noDrain.simulator.stats.requests.find((record) => record.headers["x-request-id"] === left.requestId)!;
        await expect.poll(() => upstream.outcome).toBe("aborted");
      }),
    );
  }, 60_000);
});
