import { translationBetween } from "../../shapes/index.ts";
import type { Translation } from "../types.ts";

/** A /v1/messages call served by an OpenAI-shape upstream (Chat Completions). The pair from the one list of shapes (its request, response and stream facades sit beside this file for their tests). */
export const messagesToChat: Translation = translationBetween("messages", "chat");
