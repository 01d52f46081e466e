import { itemId } from "../../../core/ids.ts";
import { list } from "../../../core/fields.ts";
import type { PartSink, StreamReader } from "../../../core/stream-parts.ts";
import { asRecord, tryJson } from "../../../core/request-fields.ts";
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
  /** The open reasoning block already carries a signature. */
  private signed = false;
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
    const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : null;
    const call = asRecord(part.functionCall);
    if (call) {
      // The call's signature rides on the reasoning before it (a block of its own when none is open).
      if (signature !== null) this.sign(signature);
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
        this.signed = false;
        this.sink.reasoningStart(this.reasoning);
      }
      if (part.text.length > 0) this.sink.reasoningDelta(this.reasoning, part.text);
      if (signature !== null) {
        this.sink.reasoningSignature(this.reasoning, { origin: "gemini", value: signature });
        this.signed = true;
      }
      return;
    }
    if (part.text.length > 0) {
      this.closeReasoning();
      if (this.text === null) {
        this.text = `text-${this.parts++}`;
        this.sink.textStart(this.text);
      }
      this.sink.textDelta(this.text, part.text);
    }
    // An answer's signature (Gemini 3: on an empty last text part) follows its text as a signed, empty reasoning block.
    if (signature !== null) this.sign(signature);
  }

  /**
   * A signature Gemini put on a function call or a text part: clients of other shapes keep signed
   * reasoning only (an Anthropic thinking block, a Responses reasoning item), so it goes on the open
   * reasoning block when that is still unsigned, else on an empty one of its own, closed at once.
   * The Gemini request writer puts it back on its part (writer/request.ts `placeSignatures`).
   */
  private sign(signature: string): void {
    if (this.reasoning === null || this.signed) {
      this.closeParts();
      this.reasoning = `reasoning-${this.parts++}`;
      this.sink.reasoningStart(this.reasoning);
    }
    this.sink.reasoningSignature(this.reasoning!, { origin: "gemini", value: signature });
    this.closeReasoning();
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
