import { errorFromResponse, networkError } from "../api/api-error.ts";

export interface ChatMessage {
  role: "user" | "assistant" | "system";
  content: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatResult {
  requestId: string | null;
  usage: ChatUsage | null;
  finishReason: string | null;
  model: string | null;
}

interface Chunk {
  model?: string;
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: ChatUsage | null;
  error?: { message?: string };
}

/**
 * POST /v1/chat/completions on the console's own origin with `stream: true`, the key (the
 * plaintext the vendor pasted) in the Authorization header, calling `onToken` with each delta as
 * it arrives. Resolves with the request id, the usage and the finish reason; a refusal before the
 * stream throws the envelope as an ApiError, an error event mid-stream throws its message.
 */
export async function streamChat(options: {
  key: string;
  model: string;
  messages: ChatMessage[];
  maxTokens?: number;
  signal?: AbortSignal;
  onStart?(requestId: string | null): void;
  onToken(text: string): void;
}): Promise<ChatResult> {
  let response: Response;
  try {
    response = await fetch("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${options.key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        model: options.model,
        messages: options.messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
      }),
      cache: "no-store",
      credentials: "omit",
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw networkError(cause);
  }
  const requestId = response.headers.get("x-request-id");
  if (!response.ok) throw await errorFromResponse(response);
  options.onStart?.(requestId);
  const result: ChatResult = { requestId, usage: null, finishReason: null, model: null };
  if (!response.body) return result;

  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const handle = (event: string) => {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (!data || data === "[DONE]") return;
    const chunk = JSON.parse(data) as Chunk;
    if (chunk.error) throw new Error(chunk.error.message ?? "The stream ended with an error.");
    if (chunk.model) result.model = chunk.model;
    if (chunk.usage) result.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      const text = choice.delta?.content;
      if (text) options.onToken(text);
      if (choice.finish_reason) result.finishReason = choice.finish_reason;
    }
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (let match = /\r?\n\r?\n/.exec(buffer); match; match = /\r?\n\r?\n/.exec(buffer)) {
      const event = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      handle(event);
    }
  }
  if (buffer.trim()) handle(buffer);
  return result;
}
