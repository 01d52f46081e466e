import { itemId } from "../../../core/ids.ts";
import { list } from "../../../core/fields.ts";
import type { PartSink, StreamReader } from "../../../core/stream-parts.ts";
import { asRecord, tryJson } from "../../../upstreams/request-fields.ts";
import { finishFromBlockReason, finishFromGemini } from "../finish.ts";
import { geminiUsage } from "../usage.ts";

/**
 * Gemini stream events (`?alt=sse`: each `data:` one GenerateContentResponse) -> neutral parts. The
 * first event starts the answer (responseId, modelVersion); every event's running `usageMetadata`
 * is the usage so far; text and thought text are text and reasoning deltas (a part of one kind
 * closes the other); a `functionCall` arrives whole: start, one delta with its args, end, at once
 * (never waiting for argument pieces); the candidate's `finishReason`, or a prompt's `blockReason`,
 * closes what is open and gives the finish. Gemini sends no end event: the stream's close is the end.
 */
export class GeminiStreamReader implements StreamReader {
  private readonly sink: PartSink;
  private readonly callIdPrefix: string;
  private started = false;
  private finished = false;
  private text: string | null = null;
  private reasoning: string | null = null;
  private parts = 0;
  private calls = false;

  constructor(sink: PartSink, callIdPrefix = "call_") {
    this.sink = sink;
    this.callIdPrefix = callIdPrefix;
  }

  push(data: string): void {
    const chunk = asRecord(tryJson(data));
    if (!chunk || chunk.error !== undefined) return;
    if (!this.started) {
      this.started = true;
      this.sink.start({ id: chunk.responseId, model: chunk.modelVersion });
    }
    const usage = geminiUsage(chunk.usageMetadata);
    if (usage) this.sink.usage(usage);
    const candidate = asRecord(list(chunk.candidates)[0]);
    if (!candidate) {
      const blocked = finishFromBlockReason(asRecord(chunk.promptFeedback)?.blockReason);
      if (blocked) this.finish(blocked);
      return;
    }
    for (const raw of list(asRecord(candidate.content)?.parts)) this.part(asRecord(raw) ?? {});
    const finish = finishFromGemini(candidate.finishReason, this.calls);
    if (finish) this.finish(finish);
  }

  end(): void {
    this.closeParts();
    this.sink.end();
  }

  private part(part: Record<string, unknown>): void {
    const call = asRecord(part.functionCall);
    if (call) {
      this.closeParts();
      this.calls = true;
      // Gemini 2.x sends no id: a random one in the client's form, never derived from the name.
      const callId = typeof call.id === "string" && call.id.length > 0 ? call.id : itemId(this.callIdPrefix as "call_" | "toolu_");
      this.sink.toolStart(callId, String(call.name ?? ""));
      this.sink.toolDelta(callId, JSON.stringify(call.args ?? {}));
      this.sink.toolEnd(callId);
      return;
    }
    if (typeof part.text !== "string") return;
    if (part.thought === true) {
      this.closeText();
      if (this.reasoning === null) {
        this.reasoning = `reasoning-${this.parts++}`;
        this.sink.reasoningStart(this.reasoning);
      }
      if (part.text.length > 0) this.sink.reasoningDelta(this.reasoning, part.text);
      if (typeof part.thoughtSignature === "string") this.sink.reasoningSignature(this.reasoning, { origin: "gemini", value: part.thoughtSignature });
      return;
    }
    if (part.text.length === 0) return;
    this.closeReasoning();
    if (this.text === null) {
      this.text = `text-${this.parts++}`;
      this.sink.textStart(this.text);
    }
    this.sink.textDelta(this.text, part.text);
  }

  private finish(finish: NonNullable<ReturnType<typeof finishFromGemini>>): void {
    if (this.finished) return;
    this.finished = true;
    this.closeParts();
    this.sink.finish(finish);
  }

  private closeText(): void {
    if (this.text === null) return;
    this.sink.textEnd(this.text);
    this.text = null;
  }

  private closeReasoning(): void {
    if (this.reasoning === null) return;
    this.sink.reasoningEnd(this.reasoning);
    this.reasoning = null;
  }

  private closeParts(): void {
    this.closeText();
    this.closeReasoning();
  }
}
