import type { Usage } from "@gateway/contracts";
import type { ModelCapabilities } from "@gateway/redis-store";
import type { EventSourceMessage } from "eventsource-parser";
import type { StreamReader, StreamWriter } from "./stream-parts.ts";
import type { DroppedParams } from "./drops.ts";
import type { ParsedRequest, WireFormat } from "./wire-format.ts";

/** `${client}-to-${upstream}` of the shapes' ids (`messages-to-chat`): one per pair, built from `shapes/index.ts`. */
export type TranslationName = `${string}-to-${string}`;

/**
 * A request in one shape served by an upstream of another: the client shape's reader and writer
 * with the upstream shape's. Every function is pure: the request mapper refuses what the upstream
 * cannot express (a 400 naming the field), the response mapper and the stream translator read the
 * upstream's own body or events. All the relay knows of a translation.
 */
export interface Translation {
  readonly name: TranslationName;
  /** The upstream's own wire format: its path, its usage capture and its stream tracker. */
  readonly upstreamWire: WireFormat;
  /**
   * The client's request in the upstream's shape (model still the public name). Fields that only
   * tune the answer and have no equivalent go to `dropped` (which throws under strict_params).
   * `capabilities`: the model's, when the caller knows them (the Gemini writer's thinking field).
   */
  request(client: ParsedRequest, dropped: DroppedParams, capabilities?: ModelCapabilities): ParsedRequest;
  /** The upstream's JSON body in the client's shape. */
  response(upstreamBody: unknown, client: ParsedRequest): Record<string, unknown>;
  /** A fresh stream translator for one attempt. */
  stream(client: ParsedRequest): StreamTranslator;
}

/**
 * Turns one upstream stream into the client's shape, event by event. One instance per attempt:
 * it holds the block indexes, open items and sequence numbers of that stream. All the relay knows
 * of a translated stream.
 */
export interface StreamTranslator {
  /** The client's SSE text for one upstream event (possibly ""): never buffers the whole answer. */
  push(event: EventSourceMessage): string;
  /** Called once the upstream stream ended whole: whatever terminal frames are still owed. */
  finish(): string;
  /** Client events written so far: the sequence number a final Responses error event takes. */
  readonly emitted: number;
}

/**
 * A translated stream: the upstream shape's reader feeding the client shape's writer. Each event
 * is read into neutral parts, which the writer frames; what it wrote is handed on at once.
 */
export class PartStream implements StreamTranslator {
  private readonly reader: StreamReader;
  private readonly writer: StreamWriter;

  constructor(writer: StreamWriter, reader: (sink: StreamWriter) => StreamReader) {
    this.writer = writer;
    this.reader = reader(writer);
  }

  get emitted(): number {
    return this.writer.emitted;
  }

  push(event: EventSourceMessage): string {
    this.reader.push(event.data);
    return this.writer.take();
  }

  finish(): string {
    this.reader.end();
    return this.writer.take();
  }
}

/**
 * What every writer keeps: what it framed and has not handed on yet (parts append to `out`, `take`
 * empties it once per upstream event), and the usage reported so far (cumulative: the last wins).
 */
export abstract class BufferedWriter {
  protected out = "";
  protected lastUsage: Usage | null = null;

  usage(usage: Usage): void {
    this.lastUsage = usage;
  }

  take(): string {
    const out = this.out;
    this.out = "";
    return out;
  }
}
