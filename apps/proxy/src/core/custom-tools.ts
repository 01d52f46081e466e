import { asRecord, tryJson } from "./request-fields.ts";
import type { DroppedParams } from "./drops.ts";
import { invalid } from "./fields.ts";

/**
 * Responses `custom` tools (freeform input: one string, e.g. Codex's `apply_patch`) on an upstream
 * that only calls JSON tools: the tool takes one string argument `input`, and the model's call
 * comes back as a `custom_tool_call` whose `input` is that string.
 */
export const CUSTOM_TOOL_SCHEMA = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's whole input, as freeform text." } },
  required: ["input"],
  additionalProperties: false,
} as const;

/**
 * A custom tool's name and description. A grammar (`format: {type: "grammar"}`) cannot be
 * enforced by the other side: it goes into the description for the model to follow, and the
 * constraint itself is dropped (listed).
 */
export function customToolDefinition(tool: Record<string, unknown>, field: string, dropped: DroppedParams): { name: string; description?: string } {
  if (typeof tool.name !== "string" || tool.name.length === 0) throw invalid(`${field}.name`, "expected a tool name");
  const format = asRecord(tool.format);
  let description = typeof tool.description === "string" ? tool.description : undefined;
  if (format?.type === "grammar") {
    dropped.drop(`${field}.format`, "the other side cannot constrain a tool's input by a grammar; the grammar is given to the model in the description");
    const grammar = `The input must follow this ${String(format.syntax ?? "")} grammar:\n${String(format.definition ?? "")}`;
    description = description ? `${description}\n\n${grammar}` : grammar;
  }
  return description === undefined ? { name: tool.name } : { name: tool.name, description };
}

/** The JSON arguments the other side's model wrote (a string or an object) -> the custom tool's input. */
export function customInputFromArguments(value: unknown): string {
  const args = asRecord(typeof value === "string" ? tryJson(value) : value);
  if (typeof args?.input === "string") return args.input;
  if (args && Object.keys(args).length === 0) return "";
  // A model that ignored the schema: what it wrote is still the best input there is.
  return typeof value === "string" ? value : JSON.stringify(value ?? {});
}

/** A custom tool call's input -> the other side's JSON arguments. */
export function customToolArguments(input: string): Record<string, string> {
  return { input };
}

const INPUT_START = /^\s*\{\s*"input"\s*:\s*"/;

/**
 * A custom tool's input as the other side streams it: pieces of the JSON `{"input": "..."}`. The
 * string's text is decoded and handed on as it arrives (`push`), so the client sees
 * `custom_tool_call_input.delta` events while the model writes; `finish` gives what is still owed
 * and the whole input, read from the complete arguments. Arguments of another form (a model that
 * ignored the schema) are handed on only at the end.
 */
export class CustomInputStream {
  private args = "";
  /** Where the string's text starts in `args`; -1 until known, null when it never will be. */
  private start: number | null = -1;
  /** How far `args` has been decoded. */
  private position = 0;
  private ended = false;
  private sent = "";

  /** Decoded input text new since the last call (possibly ""). */
  push(delta: string): string {
    this.args += delta;
    if (this.start === -1) {
      const match = INPUT_START.exec(this.args);
      if (match) this.start = this.position = match[0].length;
      // Not (yet) the start of {"input": "...": another form, handed on only at the end.
      else if (!'{"input":"'.startsWith(this.args.replace(/\s+/g, ""))) this.start = null;
    }
    if (this.start === null || this.start === -1 || this.ended) return "";
    const text = this.decode();
    this.sent += text;
    return text;
  }

  /** The input text still owed and the whole input. */
  finish(): { rest: string; input: string } {
    const input = this.args.length > 0 ? customInputFromArguments(this.args) : "";
    const rest = input.startsWith(this.sent) ? input.slice(this.sent.length) : "";
    return { rest, input };
  }

  /** Decodes the string's characters from `position` up to its end or the last whole escape. */
  private decode(): string {
    let out = "";
    let index = this.position;
    while (index < this.args.length) {
      const char = this.args[index]!;
      if (char === '"') {
        this.ended = true;
        index += 1;
        break;
      }
      if (char !== "\\") {
        out += char;
        index += 1;
        continue;
      }
      const next = this.args[index + 1];
      if (next === undefined) break;
      if (next === "u") {
        const hex = this.args.slice(index + 2, index + 6);
        if (hex.length < 4) break;
        out += String.fromCharCode(Number.parseInt(hex, 16));
        index += 6;
        continue;
      }
      out += ESCAPES[next] ?? next;
      index += 2;
    }
    this.position = index;
    return out;
  }
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };
