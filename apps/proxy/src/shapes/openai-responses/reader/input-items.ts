import { asRecord } from "../../../core/request-fields.ts";
import { invalid, isSet, list, unsupported } from "../../../core/fields.ts";

export type InputPart =
  | { type: "text"; text: string }
  | { type: "refusal"; text: string }
  /** `detail` is OpenAI's resize policy, when the client set one. */
  | { type: "image"; url: string; field: string; detail?: string };

/** Responses input items, read once into the few kinds both other shapes can carry. */
export type InputItem =
  | { kind: "message"; role: "user" | "assistant" | "system" | "developer"; content: string | InputPart[]; field: string }
  /** `namespace`: the call was to a tool of a namespace tool (sent upstream as `{namespace}__{name}`). */
  | { kind: "function_call"; callId: string; name: string; namespace?: string; arguments: string; field: string }
  | { kind: "function_call_output"; callId: string; output: string | InputPart[]; field: string }
  /** A freeform (custom) tool call: its input is one string (e.g. Codex's apply_patch). */
  | { kind: "custom_tool_call"; callId: string; name: string; namespace?: string; input: string; field: string }
  | { kind: "custom_tool_call_output"; callId: string; output: string | InputPart[]; field: string }
  | { kind: "reasoning"; summary: string; encrypted: string | null; field: string }
  /** A web search the Responses API (or this gateway, from Anthropic's server tool) ran earlier: its results are not in the item. */
  | { kind: "web_search_call"; field: string };

/** `input`: a string (one user message) or a list of items. */
export function readInput(input: unknown): InputItem[] {
  if (!isSet(input)) return [];
  if (typeof input === "string") return [{ kind: "message", role: "user", content: input, field: "input" }];
  if (!Array.isArray(input)) throw invalid("input", "expected a string or an array of input items");
  return input.map((raw, index) => readItem(asRecord(raw), `input[${index}]`));
}

function readItem(item: Record<string, unknown> | null, field: string): InputItem {
  if (!item) throw invalid(field, "expected an input item");
  const type = item.type ?? (isSet(item.role) ? "message" : undefined);
  switch (type) {
    case "message": {
      const role = item.role;
      if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer") throw invalid(`${field}.role`, "expected user, assistant, system or developer");
      const content = typeof item.content === "string" ? item.content : readParts(item.content, `${field}.content`);
      return { kind: "message", role, content, field };
    }
    case "function_call":
      if (typeof item.call_id !== "string" || typeof item.name !== "string") throw invalid(field, "expected call_id and name");
      return { kind: "function_call", callId: item.call_id, name: item.name, ...namespaceOf(item), arguments: typeof item.arguments === "string" ? item.arguments : "{}", field };
    case "function_call_output":
    case "custom_tool_call_output":
      if (typeof item.call_id !== "string") throw invalid(`${field}.call_id`, "expected a string");
      return { kind: type === "function_call_output" ? "function_call_output" : "custom_tool_call_output", callId: item.call_id, output: typeof item.output === "string" ? item.output : readParts(item.output, `${field}.output`), field };
    case "custom_tool_call":
      if (typeof item.call_id !== "string" || typeof item.name !== "string") throw invalid(field, "expected call_id and name");
      return { kind: "custom_tool_call", callId: item.call_id, name: item.name, ...namespaceOf(item), input: typeof item.input === "string" ? item.input : "", field };
    case "reasoning": {
      const summary = list(item.summary).map((part) => asRecord(part)?.text).filter((text): text is string => typeof text === "string");
      const content = list(item.content).map((part) => asRecord(part)?.text).filter((text): text is string => typeof text === "string");
      return { kind: "reasoning", summary: (summary.length > 0 ? summary : content).join(""), encrypted: typeof item.encrypted_content === "string" ? item.encrypted_content : null, field };
    }
    case "web_search_call":
      return { kind: "web_search_call", field };
    case "item_reference":
      throw unsupported(field, "item references need stored responses, which this model's upstream does not keep");
    default:
      throw unsupported(field, `${String(type)} items are only available on the Responses API itself`);
  }
}

function namespaceOf(item: Record<string, unknown>): { namespace?: string } {
  return typeof item.namespace === "string" && item.namespace.length > 0 ? { namespace: item.namespace } : {};
}

function readParts(value: unknown, field: string): InputPart[] {
  if (!Array.isArray(value)) throw invalid(field, "expected a string or an array of content parts");
  return value.map((raw, index): InputPart => {
    const part = asRecord(raw);
    const path = `${field}[${index}]`;
    switch (part?.type) {
      case "input_text":
      case "output_text":
        if (typeof part.text !== "string") throw invalid(`${path}.text`, "expected a string");
        return { type: "text", text: part.text };
      case "refusal":
        return { type: "refusal", text: typeof part.refusal === "string" ? part.refusal : "" };
      case "input_image":
        if (typeof part.image_url !== "string") throw unsupported(path, "only images given by image_url (a URL or a data URL) can be translated; file_id needs the Responses API itself");
        return { type: "image", url: part.image_url, field: `${path}.image_url`, ...(typeof part.detail === "string" ? { detail: part.detail } : {}) };
      case "input_file":
        throw unsupported(path, "input_file parts are only available on the Responses API itself");
      default:
        throw invalid(`${path}.type`, "expected input_text, output_text, refusal or input_image");
    }
  });
}
