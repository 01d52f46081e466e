import { readFileSync } from "node:fs";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { StreamTranslator } from "../../core/pipeline.ts";

/** Recorded native payloads: `openai-chat/*` and `anthropic-messages/*` (`.json` bodies, `.chunks.txt` SSE). */
export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), "utf8")) as Record<string, unknown>;
}

export function sseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

export function fixtureEvents(name: string): EventSourceMessage[] {
  return sseEvents(readFileSync(new URL(name, import.meta.url), "utf8"));
}

/** Runs a recorded upstream stream through a translator; `perEvent[i]` is what upstream event i produced. */
export function runStream(translator: StreamTranslator, events: EventSourceMessage[]): { text: string; perEvent: string[] } {
  const perEvent = events.map((event) => translator.push(event));
  const text = perEvent.join("") + translator.finish();
  return { text, perEvent };
}

/** The translated events' JSON payloads (`[DONE]` left out). */
export function payloads(text: string): Record<string, unknown>[] {
  return sseEvents(text)
    .filter((event) => event.data !== "[DONE]")
    .map((event) => JSON.parse(event.data) as Record<string, unknown>);
}

/** JSON lines, the form the SDKs' `fromReadableStream` helpers read, to let them assemble the stream. */
export function sdkReadable(text: string): ReadableStream<Uint8Array> {
  const lines = payloads(text).map((payload) => `${JSON.stringify(payload)}\n`);
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const line of lines) controller.enqueue(encoder.encode(line));
      controller.close();
    },
  });
}
