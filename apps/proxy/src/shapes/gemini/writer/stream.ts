import { BufferedWriter } from "../../../core/pipeline.ts";
import type { Finish, StreamWriter } from "../../../core/stream-parts.ts";
import { sseFrame } from "../../../core/sse.ts";
import { geminiFinishReasonFor } from "../finish.ts";
import { geminiUsageMetadata } from "../usage.ts";
import { responseId } from "./response.ts";

/**
 * Neutral parts -> Gemini stream events (`?alt=sse`): each a `data:` line holding one
 * GenerateContentResponse, no event names, no `[DONE]`. Text and (when the client asked for
 * thoughts) reasoning deltas are a chunk each; a tool call is one chunk with the whole
 * `functionCall` once its arguments are complete. One chunk is held back so the last one carries
 * the `finishReason` and the usage, as Google's last chunk does (Gemini CLI retries a stream whose
 * last chunk has no finishReason); every chunk names the response and the model.
 */
export class GeminiStreamWriter extends BufferedWriter implements StreamWriter {
  emitted = 0;
  private id = responseId(null);
  private readonly model: string;
  private readonly thoughts: boolean;
  /** The chunk's parts not written yet: the last chunk gets the finish. */
  private held: Record<string, unknown>[] | null = null;
  private readonly calls = new Map<string, { id: string; name: string; args: string }>();
  private finishReason: Finish | null = null;
  private done = false;

  constructor(model: string, thoughts: boolean) {
    super();
    this.model = model;
    this.thoughts = thoughts;
  }

  start(meta: { id?: unknown }): void {
    this.id = responseId(meta.id);
  }

  textStart(): void {}

  textDelta(_id: string, delta: string): void {
    this.parts([{ text: delta }]);
  }

  textEnd(): void {}

  reasoningStart(): void {}

  reasoningDelta(_id: string, delta: string): void {
    if (this.thoughts) this.parts([{ text: delta, thought: true }]);
  }

  reasoningSignature(): void {}

  reasoningEnd(): void {}

  toolStart(callId: string, name: string): void {
    this.calls.set(callId, { id: callId, name, args: "" });
  }

  toolDelta(callId: string, json: string): void {
    const call = this.calls.get(callId);
    if (call) call.args += json;
  }

  toolEnd(callId: string): void {
    const call = this.calls.get(callId);
    if (!call) return;
    this.calls.delete(callId);
    let args: unknown = {};
    try {
      args = call.args.length > 0 ? JSON.parse(call.args) : {};
    } catch {
      // Arguments that are not JSON (a model's broken call) reach the client as Google's own shape cannot say otherwise.
      args = { arguments: call.args };
    }
    this.parts([{ functionCall: { id: call.id, name: call.name, args } }]);
  }

  searchStart(): void {}

  searchQuery(): void {}

  searchResult(): void {}

  source(): void {}

  finish(end: Finish): void {
    this.finishReason ??= end;
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    // The last chunk: the held parts (an empty text when none: a content must have a part).
    this.chunk(this.held ?? [{ text: "" }], true);
    this.held = null;
  }

  private parts(parts: Record<string, unknown>[]): void {
    if (this.done) return;
    if (this.held !== null) this.chunk(this.held, false);
    this.held = parts;
  }

  private chunk(parts: Record<string, unknown>[], last: boolean): void {
    const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
    if (last) candidate.finishReason = geminiFinishReasonFor(this.finishReason);
    const body: Record<string, unknown> = { candidates: [candidate] };
    if (this.lastUsage) body.usageMetadata = geminiUsageMetadata(this.lastUsage);
    body.modelVersion = this.model;
    body.responseId = this.id;
    this.emitted += 1;
    this.out += sseFrame(JSON.stringify(body));
  }
}
