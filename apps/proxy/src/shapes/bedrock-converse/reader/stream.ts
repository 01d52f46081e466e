import { itemId } from "../../../core/ids.ts";
import type { PartSink, StreamReader } from "../../../core/stream-parts.ts";
import { asRecord, tryJson } from "../../../core/request-fields.ts";
import { finishFromConverse } from "../finish.ts";
import { converseUsage } from "../usage.ts";

type Open = { kind: "text" | "reasoning"; id: string } | { kind: "tool"; id: string; input: boolean };

/**
 * ConverseStream events -> neutral parts (shared/notes/wire-gemini-bedrock-vertex-azure.md section
 * 2.2). The transport hands each event message on as one JSON object named by its event type, as
 * the AWS SDK reads it: `{"messageStart":{role}}`, `{"contentBlockStart":{start:{toolUse:{toolUseId,
 * name}},contentBlockIndex}}` (sent for tool use only: a text or reasoning block begins with its
 * first delta), `{"contentBlockDelta":{delta:{text}|{toolUse:{input}}|{reasoningContent:{text}|
 * {signature}|{redactedContent}},contentBlockIndex}}`, `{"contentBlockStop":{contentBlockIndex}}`,
 * `{"messageStop":{stopReason}}`, `{"metadata":{usage}}` (last: the whole stream's usage). Unknown
 * members (the padding `p`) are ignored. The stream's close is the end.
 */
export class ConverseStreamReader implements StreamReader {
  private readonly sink: PartSink;
  private readonly callIdPrefix: "call_" | "toolu_";
  private started = false;
  private readonly open = new Map<number, Open>();

  constructor(sink: PartSink, callIdPrefix = "call_") {
    this.sink = sink;
    this.callIdPrefix = callIdPrefix === "toolu_" ? "toolu_" : "call_";
  }

  push(data: string): void {
    const event = asRecord(tryJson(data));
    if (!event) return;
    if (!this.started) {
      this.started = true;
      this.sink.start({});
    }
    const start = asRecord(event.contentBlockStart);
    if (start) return this.blockStart(start);
    const delta = asRecord(event.contentBlockDelta);
    if (delta) return this.blockDelta(delta);
    const stop = asRecord(event.contentBlockStop);
    if (stop) return this.close(index(stop));
    const messageStop = asRecord(event.messageStop);
    if (messageStop) {
      this.closeAll();
      const finish = finishFromConverse(messageStop.stopReason);
      if (finish) this.sink.finish(finish);
      return;
    }
    const metadata = asRecord(event.metadata);
    if (metadata) {
      const usage = converseUsage(metadata.usage);
      if (usage) this.sink.usage(usage);
    }
  }

  end(): void {
    this.closeAll();
    this.sink.end();
  }

  private blockStart(event: Record<string, unknown>): void {
    const toolUse = asRecord(asRecord(event.start)?.toolUse);
    if (!toolUse) return;
    const at = index(event);
    this.close(at);
    const id = typeof toolUse.toolUseId === "string" && toolUse.toolUseId.length > 0 ? toolUse.toolUseId : itemId(this.callIdPrefix);
    this.open.set(at, { kind: "tool", id, input: false });
    this.sink.toolStart(id, String(toolUse.name ?? ""));
  }

  private blockDelta(event: Record<string, unknown>): void {
    const at = index(event);
    const delta = asRecord(event.delta) ?? {};
    const open = this.open.get(at);
    const toolUse = asRecord(delta.toolUse);
    if (toolUse) {
      if (open?.kind !== "tool") return;
      if (typeof toolUse.input === "string" && toolUse.input.length > 0) {
        open.input = true;
        this.sink.toolDelta(open.id, toolUse.input);
      }
      return;
    }
    if (typeof delta.text === "string") {
      if (delta.text.length === 0) return;
      this.sink.textDelta(this.ensure(at, "text").id, delta.text);
      return;
    }
    const reasoning = asRecord(delta.reasoningContent);
    if (reasoning) {
      const block = this.ensure(at, "reasoning");
      if (typeof reasoning.text === "string" && reasoning.text.length > 0) this.sink.reasoningDelta(block.id, reasoning.text);
    }
  }

  /** The text or reasoning block at this index, started on its first delta. */
  private ensure(at: number, kind: "text" | "reasoning"): Open {
    const open = this.open.get(at);
    if (open?.kind === kind) return open;
    this.close(at);
    const block: Open = { kind, id: `${kind}-${at}` };
    this.open.set(at, block);
    if (kind === "text") this.sink.textStart(block.id);
    else this.sink.reasoningStart(block.id);
    return block;
  }

  private close(at: number): void {
    const open = this.open.get(at);
    if (!open) return;
    this.open.delete(at);
    if (open.kind === "text") this.sink.textEnd(open.id);
    else if (open.kind === "reasoning") this.sink.reasoningEnd(open.id);
    else if (open.kind === "tool") {
      if (open.kind === "tool" && !open.input) this.sink.toolDelta(open.id, "{}");
      this.sink.toolEnd(open.id);
    }
  }

  private closeAll(): void {
    for (const at of [...this.open.keys()]) this.close(at);
  }
}

function index(event: Record<string, unknown>): number {
  return typeof event.contentBlockIndex === "number" ? event.contentBlockIndex : 0;
}
