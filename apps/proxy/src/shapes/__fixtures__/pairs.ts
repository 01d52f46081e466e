import type { DroppedParams } from "../../core/drops.ts";
import type { StreamTranslator } from "../../core/pipeline.ts";
import type { ParsedRequest } from "../../core/wire-format.ts";
import { translationBetween, type ShapeId } from "../index.ts";

/*
 * One pair of shapes as the unit tests call it: through `translationBetween`, the very translation
 * the relay uses (the client shape's reader and writer with the upstream shape's), never a facade.
 */

/** A client body as the route hands it on (model and stream read from the body). */
export function parsedClient(body: Record<string, unknown>, outputBound?: number): ParsedRequest {
  return { body, model: String(body.model), stream: body.stream === true, outputBound };
}

/** The client's body, the drops list and the output bound -> the upstream's body. */
export function requestThrough(client: ShapeId, upstream: ShapeId) {
  const translation = translationBetween(client, upstream);
  return (body: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> =>
    translation.request(parsedClient(body, outputBound), dropped).body;
}

/** The upstream's JSON body -> the client's, for the client's request (default: none of its settings). */
export function responseThrough(client: ShapeId, upstream: ShapeId) {
  const translation = translationBetween(client, upstream);
  return (upstreamBody: unknown, request: Record<string, unknown> = {}): Record<string, unknown> => translation.response(upstreamBody, parsedClient(request));
}

/** A fresh stream translator for the client's request (default: none of its settings). */
export function streamThrough(client: ShapeId, upstream: ShapeId) {
  const translation = translationBetween(client, upstream);
  return (request: Record<string, unknown> = {}): StreamTranslator => translation.stream(parsedClient(request));
}
