
export type AnthropicBlock = Record<string, unknown>;
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/**
 * Builds the `messages` array turn by turn. Consecutive blocks of one role become one turn, the way
 * Anthropic itself combines them; that also puts tool results (OpenAI `tool` messages / Responses
 * `function_call_output` items) into the one user turn that must follow the tool_use turn.
 */
export class TurnBuilder {
  readonly messages: AnthropicMessage[] = [];

  add(role: "user" | "assistant", blocks: AnthropicBlock[]): void {
    if (blocks.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else this.messages.push({ role, content: [...blocks] });
  }
}

/** A mid-conversation system message in Anthropic `messages` (Claude 4.8+), text blocks only here. */
export interface AnthropicSystemMessage {
  role: "system";
  content: AnthropicBlock[];
}

/**
 * The `messages` list of a translated conversation: user and assistant turns combined as
 * `TurnBuilder` combines them, and a system/developer message said after the conversation started
 * kept as a system message in its place (Anthropic's mid-conversation system message; the request
 * drops fold it into `<system-reminder>` user text for a model without them, relay/request-drops.ts).
 * A system message between tool calls and their results waits until the last owed result is in:
 * Anthropic wants each tool_result in the turn right after its tool_use, so the request stays valid
 * whether the model takes the system message as it is or gets it folded.
 */
export class AnthropicTurns {
  readonly messages: (AnthropicMessage | AnthropicSystemMessage)[] = [];
  private builder = new TurnBuilder();
  /** tool_use ids of the last assistant turn that no tool_result has answered yet. */
  private readonly owed = new Set<string>();
  /** System messages waiting for the owed tool results. */
  private waiting: AnthropicSystemMessage[] = [];

  add(role: "user" | "assistant", blocks: AnthropicBlock[]): void {
    if (blocks.length === 0) return;
    const results = role === "user" && blocks.every((block) => block.type === "tool_result");
    // Anything but the owed results: the conversation moved on, so what waited is said first.
    if (!results) this.flush();
    const before = this.builder.messages.length;
    this.builder.add(role, blocks);
    if (this.builder.messages.length > before) this.messages.push(this.builder.messages.at(-1)!);
    if (role === "assistant") {
      for (const block of blocks) if (block.type === "tool_use" && typeof block.id === "string") this.owed.add(block.id);
    } else if (results) {
      for (const block of blocks) this.owed.delete(String(block.tool_use_id));
      if (this.owed.size === 0) this.flush();
    } else this.owed.clear();
  }

  system(blocks: AnthropicBlock[]): void {
    if (blocks.length === 0) return;
    this.waiting.push({ role: "system", content: blocks });
    if (this.owed.size === 0) this.flush();
  }

  /** The list, with any system message still waiting (for results that never came) at its end. */
  finish(): (AnthropicMessage | AnthropicSystemMessage)[] {
    this.flush();
    return this.messages;
  }

  private flush(): void {
    if (this.waiting.length === 0) return;
    this.messages.push(...this.waiting);
    this.waiting = [];
    this.owed.clear();
    // The next turn starts after the system message, never merged into the one before it.
    this.builder = new TurnBuilder();
  }
}

/**
 * A system prompt: one string stays a string; several parts become text blocks, so their
 * boundaries are kept.
 */
export function anthropicSystem(texts: string[]): string | AnthropicBlock[] | undefined {
  if (texts.length === 0) return undefined;
  if (texts.length === 1) return texts[0];
  return texts.map((text) => ({ type: "text", text }));
}

/** Anthropic refuses empty text blocks; an empty text carries nothing, so it is left out. */
export function textBlock(text: string): AnthropicBlock[] {
  return text.length > 0 ? [{ type: "text", text }] : [];
}
