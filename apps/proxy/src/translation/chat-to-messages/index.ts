import { translationBetween } from "../../shapes/index.ts";
import type { Translation } from "../types.ts";

/** A /v1/chat/completions call served by an Anthropic-shape upstream. The pair from the one list of shapes (its request, response and stream facades sit beside this file for their tests). */
export const chatToMessages: Translation = translationBetween("chat", "messages");
