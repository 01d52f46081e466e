import { describe, expect, it } from "vitest";
import { fixtureEvents, sseEvents } from "./__fixtures__/fixtures.ts";
import { WIRE_FORMATS } from "./wire-formats.ts";

/** Events 0..n of a recorded stream through the shape's tracker: what it says of usage at each step. */
function usageAlong(endpoint: "messages" | "chat.completions" | "responses", fixture: string) {
  const wire = WIRE_FORMATS[endpoint];
  const tracker = wire.createStreamTracker(wire.parse({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], stream: true }));
  return fixtureEvents(fixture).map((event) => {
    tracker.observe(event);
    return { event: event.event ?? event.data.slice(0, 20), final: tracker.usage(), reported: tracker.reported() };
  });
}

describe("final usage is told apart from partial usage", () => {
  it("a message_start's output_tokens is reported, never final: only message_delta's cumulative usage is", () => {
    const steps = usageAlong("messages", "anthropic-messages/text-cached.chunks.txt");
    const delta = steps.findIndex((step) => step.event === "message_delta");
    expect(delta).toBeGreaterThan(0);
    for (const step of steps.slice(0, delta)) {
      expect(step.final).toBeNull();
      expect(step.reported).toMatchObject({ inputTokens: 2034, outputTokens: 1 });
    }
    for (const step of steps.slice(delta)) expect(step.final).toMatchObject({ inputTokens: 2034, outputTokens: 10 });
  });

  it("OpenAI chat: final once the usage chunk came, nothing before", () => {
    const steps = usageAlong("chat.completions", "openai-chat/text-cached.chunks.txt");
    const first = steps.findIndex((step) => step.final !== null);
    expect(first).toBeGreaterThan(0);
    for (const step of steps.slice(0, first)) expect(step.reported).toBeNull();
  });

  it("OpenAI chat: a usage on a chunk with choices (a running count, on some upstreams) is final only at [DONE]", () => {
    const wire = WIRE_FORMATS["chat.completions"];
    const tracker = wire.createStreamTracker(wire.parse({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }));
    const chunk = (choices: unknown[], usage: unknown) => sseEvents(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices, usage })}\n\n`)[0]!;
    tracker.observe(chunk([{ index: 0, delta: { content: "Hi" } }], { prompt_tokens: 4, completion_tokens: 1 }));
    expect(tracker.usage()).toBeNull();
    expect(tracker.reported()).toMatchObject({ inputTokens: 4, outputTokens: 1 });
    tracker.observe(chunk([{ index: 0, delta: { content: " there" } }], { prompt_tokens: 4, completion_tokens: 2 }));
    expect(tracker.usage()).toBeNull();
    tracker.observe(sseEvents("data: [DONE]\n\n")[0]!);
    expect(tracker.usage()).toMatchObject({ inputTokens: 4, outputTokens: 2 });
  });

  it("Responses: final on the terminal event only", () => {
    const wire = WIRE_FORMATS.responses;
    const tracker = wire.createStreamTracker(wire.parse({ model: "m", input: "hi", stream: true }));
    const events = sseEvents(
      'event: response.created\ndata: {"type":"response.created","response":{"usage":null}}\n\n' +
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n' +
        'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":7,"output_tokens_details":{"reasoning_tokens":5}}}}\n\n',
    );
    tracker.observe(events[0]!);
    tracker.observe(events[1]!);
    expect(tracker.usage()).toBeNull();
    expect(tracker.outputText(events[1]!)).toBe("Hi");
    tracker.observe(events[2]!);
    expect(tracker.usage()).toMatchObject({ inputTokens: 3, outputTokens: 7, reasoningTokens: 5 });
  });
});
