// What every client test needs from the shared stack (see global-stack.ts): a key of its own, a
// marker that finds its upstream requests among those of tests running at the same time, the text
// the simulator generated for a request, and the ledger rows its key was billed.
import { randomBytes } from "node:crypto";
import { expect, inject } from "vitest";
import { encodeToolArgs, generateWords, type StatsRecord } from "@gateway/simulator";

export const ctx = () => inject("clients");

/** A fresh key on the demo's `standard` server option (through the vendor API, as a reseller mints one). */
export async function mintKey(name: string): Promise<{ id: string; key: string }> {
  const { proxyUrl, vendorToken } = ctx();
  const response = await fetch(`${proxyUrl}/api/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ server_option: "standard", name: name.slice(0, 100) }),
  });
  const body = (await response.json()) as { id: string; key: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return { id: body.id, key: body.key };
}

/** A token no other test's prompt carries. */
export function marker(): string {
  return `run${randomBytes(6).toString("hex")}`;
}

/** `#sim:tool=<name> #sim:tool_args=<base64url JSON>`: the simulator calls that tool once, with these arguments. */
export function toolDirective(name: string, args: Record<string, unknown>): string {
  return `#sim:tool=${name} #sim:tool_args=${encodeToolArgs(args)}`;
}

/** The simulator's records of requests whose body carries `marker` (oldest first). */
export async function upstream(mark: string): Promise<StatsRecord[]> {
  const response = await fetch(`${ctx().helperUrl}/upstream?marker=${encodeURIComponent(mark)}`);
  return (await response.json()) as StatsRecord[];
}

export interface LedgerRow {
  requestId: string;
  model: string;
  upstreamModel: string | null;
  endpoint: string;
  status: string;
  stream: boolean;
  estimated: boolean;
  inputTokens: number;
  outputTokens: number;
  costNano: number;
}

export async function ledger(keyId: string): Promise<LedgerRow[]> {
  const response = await fetch(`${ctx().helperUrl}/ledger?key_id=${encodeURIComponent(keyId)}`);
  return (await response.json()) as LedgerRow[];
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part === "string") texts.push(part);
    else if (part && typeof part === "object") {
      const block = part as { type?: string; text?: unknown };
      if (typeof block.text === "string" && (block.type === undefined || ["text", "input_text", "output_text"].includes(block.type))) texts.push(block.text);
    }
  }
  return texts.join("\n");
}

/** The text the simulator seeds its words with: the last user message (or input item) with text. */
export function seedOf(record: StatsRecord): string {
  const body = record.body as { messages?: unknown[]; input?: unknown };
  if (typeof body.input === "string") return body.input;
  const items = (Array.isArray(body.input) ? body.input : (body.messages ?? [])) as { role?: string; type?: string; content?: unknown }[];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.role !== "user" || (item.type !== undefined && item.type !== "message")) continue;
    const text = contentText(item.content);
    if (text.length > 0) return text;
  }
  return "";
}

/** The answer text the simulator generated for `record` (12 words unless a `#sim:chunks=` says otherwise). */
export function generatedText(record: StatsRecord): string {
  const seed = seedOf(record);
  const chunks = /#sim:chunks=(\d+)/.exec(seed);
  return generateWords(seed, chunks ? Number(chunks[1]) : 12).join(" ");
}

/** The main-turn records (those that offered tools), completed. */
export function completed(records: StatsRecord[]): StatsRecord[] {
  return records.filter((record) => record.outcome === "ok" && record.usage !== null);
}

/** Whether the record's body carries a tool result whose text contains `text`. */
export function carriesToolResult(record: StatsRecord, text: string): boolean {
  const body = record.body as { messages?: unknown[]; input?: unknown[] };
  const items = (body.messages ?? body.input ?? []) as Record<string, unknown>[];
  return items.some((item) => {
    if (item.role === "tool" || item.type === "function_call_output" || item.type === "custom_tool_call_output") return JSON.stringify(item).includes(text);
    if (Array.isArray(item.content)) return (item.content as { type?: string }[]).some((block) => block.type === "tool_result" && JSON.stringify(block).includes(text));
    return false;
  });
}

/**
 * Every completed upstream request of the run was billed to the key: the key's ledger holds a row
 * with the simulator's token counts for each (the worker writes within a few seconds), none estimated.
 */
export async function expectBilled(keyId: string, mark: string): Promise<LedgerRow[]> {
  const served = completed(await upstream(mark));
  expect(served.length, "no completed upstream request").toBeGreaterThan(0);
  const wanted = served.map((record) => `${record.usage!.input_tokens}/${record.usage!.output_tokens}`).sort();
  // Polled by hand: expect.poll() is not available in concurrent tests.
  let rows: LedgerRow[] = [];
  let missing = wanted;
  const deadline = Date.now() + 15_000;
  for (;;) {
    rows = (await ledger(keyId)).filter((row) => row.status === "ok");
    const have = rows.map((row) => `${row.inputTokens}/${row.outputTokens}`);
    missing = wanted.filter((entry) => {
      const at = have.indexOf(entry);
      if (at < 0) return true;
      have.splice(at, 1);
      return false;
    });
    if (missing.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(missing, `upstream usage (input/output) without a ledger row; ledger: ${rows.map((row) => `${row.model} ${row.inputTokens}/${row.outputTokens}`).join(", ")}`).toEqual([]);
  for (const row of rows) {
    expect(row.estimated).toBe(false);
    expect(row.costNano).toBeGreaterThan(0);
  }
  return rows;
}
