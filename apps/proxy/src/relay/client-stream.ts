import type { EventSourceMessage } from "eventsource-parser";
import type { StreamTracker } from "../upstreams/index.ts";
import { providerErrorMessage } from "../upstreams/provider-error.ts";
import { tryJson } from "../upstreams/request-fields.ts";
import { sseFrame } from "../upstreams/sse.ts";
import type { StreamTranslator } from "../translation/index.ts";
import type { AttemptContext } from "./attempt-context.ts";

/**
 * What the client receives for the upstream's stream events. The upstream's own tracker always
 * watches its events (usage for billing, completeness); the client gets either those events as
 * they came or their translation into its shape, and its own shape's final error event.
 */
export interface ClientStream {
  readonly tracker: StreamTracker;
  /**
   * The client's frames for one upstream event that is not an error (possibly ""), or null when
   * the event reaches the client exactly as it came and `hasBytes` says its own bytes are at hand
   * (same shape): then those are written.
   */
  event(event: EventSourceMessage, hasBytes: boolean): string | null;
  /** The upstream's own error event, after the first byte reached the client. */
  upstreamError(event: EventSourceMessage): string;
  /** Frames still owed once the upstream stream ended whole. */
  finish(): string;
  /** The client's shape's final error event (contract section 3). */
  error(message: string): string;
}

export function clientStream(context: AttemptContext): ClientStream {
  return context.translation ? new TranslatedStream(context, context.translation.stream(context.request)) : new RelayedStream(context);
}

/** Same shape: the upstream's events are relayed as they are, minus what the client did not ask for. */
class RelayedStream implements ClientStream {
  readonly tracker: StreamTracker;
  private readonly context: AttemptContext;
  private events = 0;

  constructor(context: AttemptContext) {
    this.context = context;
    this.tracker = context.wire.createStreamTracker(context.request);
  }

  event(event: EventSourceMessage, hasBytes: boolean): string | null {
    this.events += 1;
    if (!this.tracker.observe(event)) return "";
    return hasBytes ? null : sseFrame(event.data, event.event);
  }

  upstreamError(event: EventSourceMessage): string {
    return sseFrame(event.data, event.event);
  }

  finish(): string {
    return "";
  }

  error(message: string): string {
    return this.context.wire.streamErrorEvent(message, "upstream_error", this.events);
  }
}

/** Across shapes: each upstream event is observed in its own format, then translated. */
class TranslatedStream implements ClientStream {
  readonly tracker: StreamTracker;
  private readonly context: AttemptContext;
  private readonly translator: StreamTranslator;
  private ended = false;

  constructor(context: AttemptContext, translator: StreamTranslator) {
    this.context = context;
    this.translator = translator;
    this.tracker = context.upstreamWire.createStreamTracker(context.upstreamRequest);
  }

  event(event: EventSourceMessage): string {
    // Every event is observed (usage, completeness); what the client sees is the translator's call.
    this.tracker.observe(event);
    return this.ended ? "" : this.translator.push(event);
  }

  upstreamError(event: EventSourceMessage): string {
    return this.error(providerErrorMessage(tryJson(event.data)) ?? "The upstream failed mid-stream.");
  }

  finish(): string {
    return this.ended ? "" : this.translator.finish();
  }

  error(message: string): string {
    if (this.ended) return "";
    this.ended = true;
    return this.context.wire.streamErrorEvent(message, "upstream_error", this.translator.emitted);
  }
}
