import { translationBetween } from "../../shapes/index.ts";
import type { Translation } from "../types.ts";

/** A /v1/responses call served by an Anthropic-shape upstream. The pair from the one list of shapes (its request, response and stream facades sit beside this file for their tests). */
export const responsesToMessages: Translation = translationBetween("responses", "messages");
