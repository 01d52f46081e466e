import { unsupported } from "../../core/fields.ts";
import type { Translation } from "../../core/pipeline.ts";
import type { EndpointName, Shape } from "../../upstreams/index.ts";
import { pairTranslation, SHAPE_LIST, type ClientSide, type ShapeEntry, type UpstreamSide } from "../index.ts";
import { gemini, geminiEmbeddingsOnOpenAI } from "./index.ts";

/*
 * The Gemini pairs, composed by shapes/index.ts's `pairTranslation` from the Gemini entry
 * (./index.ts) and the other shapes' entries, until the Gemini entry joins SHAPE_LIST itself.
 */

type WithClient = ShapeEntry & { client: ClientSide };
type WithUpstream = ShapeEntry & { upstream: UpstreamSide };

const pairs = new Map<string, Translation>();

function pair(client: WithClient, upstream: WithUpstream): Translation {
  const name = `${client.id}-to-${upstream.id}`;
  let translation = pairs.get(name);
  if (translation === undefined) {
    translation = pairTranslation(client, upstream);
    pairs.set(name, translation);
  }
  return translation;
}

/** A chat, Messages or Responses call served by a Gemini-shape upstream. */
export function toGemini(endpoint: EndpointName): Translation {
  const client = SHAPE_LIST.find((entry) => entry.client?.endpoint === endpoint);
  if (!client?.client) throw unsupported("model", `${endpoint} calls are not served by a Gemini-shape upstream`);
  return pair(client as WithClient, gemini as WithUpstream);
}

/** A Gemini generateContent call served by an upstream of another shape. */
export function fromGemini(shape: Shape): Translation {
  const upstream = SHAPE_LIST.find((entry) => entry.upstream?.kind === shape);
  if (!upstream?.upstream) throw unsupported("model", `Gemini calls are not served by a ${shape}-shape upstream`);
  return pair(gemini as WithClient, upstream as WithUpstream);
}

/** A Gemini embedding call (embedContent, batchEmbedContents) on an upstream of another shape: OpenAI embeddings, or a 400 naming `model`. */
export function geminiEmbeddingsOn(shape: Shape): Translation {
  if (shape === "openai") return geminiEmbeddingsOnOpenAI;
  throw unsupported("model", "embeddings of a Gemini client are served by Gemini- and OpenAI-shape upstreams only");
}
