import type { EventSourceMessage } from "eventsource-parser";
import type { StreamTracker } from "../core/wire-format.ts";
import { sseFrame } from "../core/sse.ts";
import type { StreamTranslator } from "../core/pipeline.ts";
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
  /**
   * The final error event for the upstream's own error event, after the first byte reached the
   * client: the gateway's message, never the upstream's (it is logged: contract section 14).
   */
  upstreamError(): string;
  /** Frames still owed once the upstream stream ended whole. */
  finish(): string;
  /**
   * The client's shape's final error event (contract section 3); `code` and `type` are the
   * envelope's (`upstream_error`/`api_error` unless the gateway itself ends the stream, as for a
   * revoked key).
   */
  error(message: string, code?: string, type?: string): string;
}

/** What a client is told of an upstream's error event mid-stream. */
export const UPSTREAM_FAILED_MID_STREAM = "The upstream failed mid-stream.";

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

  upstreamError(): string {
    return this.error(UPSTREAM_FAILED_MID_STREAM);
  }

  finish(): string {
    return "";
  }

  error(message: string, code = "upstream_error", type = "api_error"): string {
    return this.context.wire.streamErrorEvent(message, code, this.events, type);
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

  upstreamError(): string {
    return this.error(UPSTREAM_FAILED_MID_STREAM);
  }

  finish(): string {
    return this.ended ? "" : this.translator.finish();
  }

  error(message: string, code = "upstream_error", type = "api_error"): string {
    if (this.ended) return "";
    this.ended = true;
    return this.context.wire.streamErrorEvent(message, code, this.translator.emitted, type);
  }
}
