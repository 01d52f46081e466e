// Client traffic for the scale proof: both shapes, streaming and not, through plain HTTP as any
// client sends it, and the vendor API calls that mint and revoke keys.

export const CALLS = ["chat", "chat-stream", "messages", "messages-stream"] as const;
export type Call = (typeof CALLS)[number];

export interface CallResult {
  call: Call;
  proxy: string;
  status: number;
  requestId: string | null;
  /** The whole answer arrived: usage in a JSON body, or the stream's final event. */
  complete: boolean;
}

/** One request through `proxy`; `index` varies the prompt and the answer's length. */
export async function callProxy(proxy: string, key: string, call: Call, index: number): Promise<CallResult> {
  const stream = call.endsWith("-stream");
  // `#sim:` sets how many words the simulator answers; the filler varies the input tokens.
  const content = `#sim: chunks=${3 + (index % 7)} ${"ask ".repeat(1 + (index % 11))}${index}`;
  const messages = [{ role: "user", content }];
  const chat = call.startsWith("chat");
  const response = await fetch(`${proxy}${chat ? "/v1/chat/completions" : "/v1/messages"}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(chat ? {} : { "anthropic-version": "2023-06-01" }) },
    body: JSON.stringify(chat ? { model: "gpt-4o-mini", messages, stream } : { model: "claude-sonnet-4-5", max_tokens: 256, messages, stream }),
  });
  const text = await response.text();
  const complete = response.status === 200 && (stream ? text.includes(chat ? "data: [DONE]" : "event: message_stop") : "usage" in (JSON.parse(text) as object));
  return { call, proxy, status: response.status, requestId: response.headers.get("x-request-id"), complete };
}

/** A call that only authenticates (no upstream, nothing billed): 200 for a live key, 401 once revoked. */
export async function authStatus(proxy: string, key: string): Promise<number> {
  const response = await fetch(`${proxy}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

/** The vendor API of one control plane, as a vendor calls it with its `vt_` token. */
export function vendorApi(controlPlane: string, token: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${controlPlane}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path} on ${controlPlane}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    async mintKey(name: string): Promise<{ id: string; key: string }> {
      const created = await call("POST", "/keys", { server_option: "standard", name });
      return { id: String(created.id), key: String(created.key) };
    },
    async revokeKey(id: string): Promise<void> {
      await call("DELETE", `/keys/${id}`);
    },
  };
}

/** Runs `tasks` with at most `limit` in flight. */
export async function inParallel<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  });
  await Promise.all(lanes);
  return results;
}
