import { asRecord } from "./request-fields.ts";

/*
 * Mid-conversation system messages (contract section 15): `{"role": "system"}` inside an Anthropic
 * `messages` list, which Claude 4.8+ takes and Claude Code 2.1 sends. A model without them gets the
 * message as a `<system-reminder>` text at the start of the next user turn, as Claude Code itself
 * writes its reminders (and inspect_ai PR #4104 does for pre-4.8 models); it is not "dropped": the
 * model still reads every word.
 */

/** The one rendering of a system message's text as user text. */
export function systemReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

/** Whether an Anthropic `messages` list holds a system message (a plain loop: this runs per request). */
export function hasSystemMessage(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  for (let index = 0; index < messages.length; index += 1) {
    if (asRecord(messages[index])?.role === "system") return true;
  }
  return false;
}

type Block = Record<string, unknown>;

/**
 * A system message's content as user blocks: each text block becomes a reminder text (its
 * `cache_control` kept, so a prompt-cache breakpoint stays where the client put it); any other block
 * goes as it is (the upstream judges it); a string is one reminder.
 */
function reminderBlocks(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: systemReminder(content) }];
  if (!Array.isArray(content)) return [];
  return content.map((raw) => {
    const block = asRecord(raw);
    if (block?.type !== "text" || typeof block.text !== "string") return raw as Block;
    return { ...block, text: systemReminder(block.text) };
  });
}

/** A user turn's content as blocks (a string is one text block). */
function contentBlocks(content: string | unknown[]): unknown[] {
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  return content;
}

/** Where text may go in a user turn: after its leading tool results (Anthropic wants those first). */
function afterToolResults(blocks: readonly unknown[]): number {
  let index = 0;
  while (index < blocks.length && asRecord(blocks[index])?.type === "tool_result") index += 1;
  return index;
}

/**
 * An Anthropic `messages` list for a model without mid-conversation system messages: each system
 * message goes, as reminder text, to the start of the user turn right after it (after that turn's
 * leading tool results), or becomes a user turn in its place when the next message is not a user
 * turn (an assistant turn: the reminder is not moved past the answer it came before, and an
 * assistant prefill stays last; or none at all) or the next one's content is malformed (left for
 * the upstream to judge). Anthropic combines consecutive user turns, so one in place after a user
 * turn is valid too. Every other message is kept as it is (the same objects); the list itself is
 * returned unchanged when it holds no system message.
 */
export function foldSystemMessages(messages: unknown[]): unknown[] {
  if (!hasSystemMessage(messages)) return messages;
  const folded: unknown[] = [];
  // Reminders waiting for the user turn right after them.
  let pending: Block[] = [];
  for (const raw of messages) {
    const message = asRecord(raw);
    if (message?.role === "system") {
      pending.push(...reminderBlocks(message.content));
      continue;
    }
    if (message?.role === "user" && pending.length > 0 && (typeof message.content === "string" || Array.isArray(message.content))) {
      const blocks = contentBlocks(message.content as string | unknown[]);
      const at = afterToolResults(blocks);
      folded.push({ ...message, content: [...blocks.slice(0, at), ...pending, ...blocks.slice(at)] });
      pending = [];
      continue;
    }
    if (pending.length > 0) {
      folded.push({ role: "user", content: pending });
      pending = [];
    }
    folded.push(raw);
  }
  if (pending.length > 0) folded.push({ role: "user", content: pending });
  return folded;
}
