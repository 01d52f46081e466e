import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { BodySink } from "../../relay/upstream-client.ts";
import { sseFrame } from "../../core/sse.ts";
import { converseEventFrame } from "../../shapes/bedrock-converse/wire.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);
/** A message's fixed prelude: total length, headers length, prelude CRC. */
const PRELUDE = 12;

/** A Bedrock exception's lower-camel member name -> the Anthropic error type a client reads. */
function errorType(exception: string): string {
  switch (exception) {
    case "throttlingException":
    case "serviceQuotaExceededException":
      return "rate_limit_error";
    case "validationException":
      return "invalid_request_error";
    case "modelTimeoutException":
    case "serviceUnavailableException":
      return "overloaded_error";
    default:
      return "api_error";
  }
}

/**
 * InvokeModelWithResponseStream's body (`application/vnd.amazon.eventstream`): binary messages, each
 * checked by the codec (both CRCs, the length); a `chunk` event's payload is `{"bytes": base64}` of
 * one Anthropic stream event, passed on as that event's SSE frame; an exception message (a
 * `throttlingException` after the 200, say) becomes Anthropic's `error` event, which fails the
 * attempt over before the first byte and ends the stream after it. TCP cuts messages anywhere: the
 * bytes of an unfinished one wait for the next chunk.
 */
export class BedrockEventStream implements BodySink {
  private pending: Buffer | null = null;
  private readonly sink: BodySink;
  private readonly api: "invoke" | "converse";

  /** `converse`: ConverseStream, whose events carry their JSON directly (`converseEventFrame`), not base64 Anthropic events. */
  constructor(sink: BodySink, api: "invoke" | "converse" = "invoke") {
    this.sink = sink;
    this.api = api;
  }

  chunk(chunk: Buffer, resume: () => void): boolean {
    let bytes = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let text = "";
    while (bytes.length >= PRELUDE) {
      const length = bytes.readUInt32BE(0);
      if (length < 16) throw new Error("a Bedrock event stream message shorter than its prelude");
      if (bytes.length < length) break;
      text += this.frame(bytes.subarray(0, length));
      bytes = bytes.subarray(length);
    }
    if (bytes.length > 0) this.pending = Buffer.from(bytes);
    return text === "" ? true : this.sink.chunk(Buffer.from(text, "utf8"), resume);
  }

  end(): void {
    if (this.pending !== null) throw new Error("the Bedrock event stream ended inside a message");
    this.sink.end?.();
  }

  /** One message as the SSE frame of its Anthropic event ("" for a message that carries none). */
  private frame(bytes: Buffer): string {
    const message = codec.decode(bytes);
    const header = (name: string) => {
      const value = message.headers[name]?.value;
      return typeof value === "string" ? value : null;
    };
    const body = toUtf8(message.body);
    const kind = header(":message-type");
    if (kind === "exception" || kind === "error") {
      const exception = header(":exception-type") ?? header(":error-code") ?? "internalServerException";
      let text = header(":error-message") ?? exception;
      try {
        const parsed = JSON.parse(body) as { message?: unknown; Message?: unknown };
        const said = parsed.message ?? parsed.Message;
        if (typeof said === "string") text = `${exception}: ${said}`;
      } catch {
        // An unmodeled error's message rides in its headers.
      }
      return sseFrame(JSON.stringify({ type: "error", error: { type: errorType(exception), message: text } }), "error");
    }
    if (this.api === "converse") {
      const type = header(":event-type");
      return kind === "event" && type !== null && body.trim().startsWith("{") ? converseEventFrame(type, body) : "";
    }
    if (header(":event-type") !== "chunk") return "";
    const payload = JSON.parse(body) as { bytes?: unknown };
    if (typeof payload.bytes !== "string") return "";
    const event = Buffer.from(payload.bytes, "base64").toString("utf8");
    const type = (JSON.parse(event) as { type?: unknown }).type;
    // The bedrock SDK drops a chunk without a type as well.
    return typeof type === "string" ? sseFrame(event, type) : "";
  }
}
