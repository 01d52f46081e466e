import { asRecord } from "../../core/request-fields.ts";
import { invalid, list, unsupported } from "../../core/fields.ts";

/**
 * Responses `namespace` tools (openai-node `NamespaceTool`: `{type: "namespace", name, description,
 * tools: [function | custom tools]}`; Codex's sub-agent tools come as one) on an upstream whose
 * tools are one flat list: each inner tool is sent as `{namespace}__{name}`, and a call to that
 * name comes back as a `function_call` (or `custom_tool_call`) carrying `namespace` and the
 * tool's own name, as the Responses API answers.
 */
export const NAMESPACE_SEPARATOR = "__";

export function namespacedName(namespace: string | undefined, name: string): string {
  return namespace === undefined ? name : `${namespace}${NAMESPACE_SEPARATOR}${name}`;
}

/** One tool of the request as the other side sees it: `field` is its path in the client's request. */
export interface LeafTool {
  tool: Record<string, unknown>;
  field: string;
}

/**
 * The request's `tools` with each namespace replaced by its tools, renamed `{namespace}__{name}`,
 * the namespace's description put before each one's own. Tools of other types are left as they
 * are for the caller to map (or refuse). Two tools that end up with one name are a 400.
 */
export function flattenNamespaces(tools: unknown): LeafTool[] {
  const leaves: LeafTool[] = [];
  for (const [index, raw] of list(tools).entries()) {
    const tool = asRecord(raw);
    const field = `tools[${index}]`;
    if (tool?.type !== "namespace") {
      leaves.push({ tool: tool ?? {}, field });
      continue;
    }
    const namespace = tool.name;
    if (typeof namespace !== "string" || namespace.length === 0) throw invalid(`${field}.name`, "expected a namespace name");
    if (!Array.isArray(tool.tools)) throw invalid(`${field}.tools`, "expected the namespace's tools");
    for (const [innerIndex, innerRaw] of tool.tools.entries()) {
      const inner = asRecord(innerRaw);
      const innerField = `${field}.tools[${innerIndex}]`;
      if (inner?.type !== "function" && inner?.type !== "custom") throw unsupported(innerField, "a namespace holds function and custom tools only");
      if (typeof inner.name !== "string" || inner.name.length === 0) throw invalid(`${innerField}.name`, "expected a tool name");
      const description = [typeof tool.description === "string" && tool.description.length > 0 ? `${namespace}: ${tool.description}` : null, typeof inner.description === "string" ? inner.description : null]
        .filter((text): text is string => text !== null)
        .join("\n\n");
      leaves.push({ tool: { ...inner, name: namespacedName(namespace, inner.name), ...(description.length > 0 ? { description } : {}) }, field: innerField });
    }
  }
  const seen = new Set<string>();
  for (const { tool, field } of leaves) {
    if ((tool.type !== "function" && tool.type !== "custom") || typeof tool.name !== "string") continue;
    if (seen.has(tool.name)) throw invalid(`${field}.name`, `two tools are named ${tool.name} once namespaces are flattened (${NAMESPACE_SEPARATOR} joins a namespace and its tool's name)`);
    seen.add(tool.name);
  }
  return leaves;
}

/** What the other side's model called, in the client's words. */
export interface CalledTool {
  name: string;
  namespace?: string;
  /** A custom (freeform) tool: answered as a `custom_tool_call` with one string input. */
  custom: boolean;
}

/**
 * The request's function and custom tools by the name the upstream knows them by, to answer each
 * call in the client's words. Never throws: it reads the request the request mapper accepted.
 */
export class CalledTools {
  private readonly byUpstreamName = new Map<string, CalledTool>();

  constructor(request: Record<string, unknown>) {
    for (const raw of list(request.tools)) {
      const tool = asRecord(raw);
      if (tool?.type === "namespace" && typeof tool.name === "string") {
        for (const innerRaw of list(tool.tools)) {
          const inner = asRecord(innerRaw);
          if (typeof inner?.name !== "string") continue;
          this.byUpstreamName.set(namespacedName(tool.name, inner.name), { name: inner.name, namespace: tool.name, custom: inner.type === "custom" });
        }
      } else if (tool?.type === "custom" && typeof tool.name === "string") {
        this.byUpstreamName.set(tool.name, { name: tool.name, custom: true });
      }
    }
  }

  /** A name the upstream's model called: a namespaced or custom tool of the request, else a plain function. */
  resolve(upstreamName: string): CalledTool {
    return this.byUpstreamName.get(upstreamName) ?? { name: upstreamName, custom: false };
  }
}
