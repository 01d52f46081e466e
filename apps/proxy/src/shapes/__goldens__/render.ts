import type { EventSourceMessage } from "eventsource-parser";
import type { ParsedRequest } from "../../core/wire-format.ts";
import { DroppedParams } from "../../core/drops.ts";
import type { StreamTranslator } from "../../core/pipeline.ts";

/*
 * What a golden file holds: a translation's output, rendered so that two outputs render alike only
 * when they are the same bytes. JSON is pretty-printed in its own key order (the order is part of
 * the bytes the upstream or the client gets); a stream keeps each upstream event's output apart, so
 * when a frame is written is compared too, not only what.
 */

/**
 * Ids the gateway invents are random (`randomUUID`, 32 hex digits once its dashes go): each becomes
 * `<id1>`, `<id2>`, ... by first appearance in the file, so the same invented id stays the same
 * placeholder wherever it is repeated. The prefix before it (`msg_`, `fc_`, `chatcmpl-`) is kept.
 * The recorded fixtures' own ids are never 32 hex digits, so they stay as they came.
 */
export function normaliseIds(text: string): string {
  const seen = new Map<string, string>();
  return text.replace(/(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])/g, (id) => {
    let placeholder = seen.get(id);
    if (placeholder === undefined) {
      placeholder = `<id${seen.size + 1}>`;
      seen.set(id, placeholder);
    }
    return placeholder;
  });
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** A refusal as the client would be told it (code, param, message), or a fault that is not one. */
function thrown(error: unknown): Record<string, unknown> {
  if (error instanceof Error && "code" in error) {
    const { code, status, param } = error as Error & { code: unknown; status: unknown; param: unknown };
    return { error: { code, status, param, message: error.message } };
  }
  return { fault: String(error) };
}

/**
 * The upstream request a client request becomes, and what was dropped on the way (the paths of
 * `x-gateway-dropped-params`); or the refusal. `strict`: the server option's `strict_params`.
 */
export function renderRequest(translate: (dropped: DroppedParams) => ParsedRequest, strict: boolean): string {
  const list = new DroppedParams(strict);
  try {
    const upstream = translate(list);
    return json({ dropped: list.paths, model: upstream.model, stream: upstream.stream, outputBound: upstream.outputBound ?? null, body: upstream.body });
  } catch (error) {
    return json({ dropped: list.paths, ...thrown(error) });
  }
}

/** The client's JSON body for an upstream's JSON body, or the refusal. */
export function renderResponse(translate: () => unknown): string {
  try {
    return json(translate());
  } catch (error) {
    return json(thrown(error));
  }
}

/**
 * The client's SSE text for an upstream stream: each upstream event's output under a line naming
 * the event, then what `finish()` still owed, then the count of client events (`emitted`, the
 * sequence number a final error event would take). Each output is followed by one newline, so an
 * empty output and one ending without a newline render apart.
 */
export function renderStream(translator: StreamTranslator, events: readonly EventSourceMessage[]): string {
  const lines: string[] = [];
  try {
    events.forEach((event, index) => {
      lines.push(`=== upstream event ${index}: ${event.event ?? (event.data === "[DONE]" ? "[DONE]" : "data")}`, translator.push(event));
    });
    lines.push("=== finish", translator.finish());
    lines.push(`=== emitted ${translator.emitted}`);
  } catch (error) {
    lines.push("=== thrown", JSON.stringify(thrown(error)));
  }
  return `${lines.join("\n")}\n`;
}
