// Steady client traffic for the fault tests: lanes of chat completions (streaming and not) sent
// back to back until stopped, every outcome kept so a test can check each one afterwards.

export interface TrafficResult {
  requestId: string;
  status: number;
  stream: boolean;
  /** For a 200 stream: it ended with `data: [DONE]` and no error event. */
  complete: boolean;
  startedAt: number;
  finishedAt: number;
  /** Set when the request never got a response (connection refused, reset). */
  error: string | null;
}

export interface Traffic {
  results: TrafficResult[];
  /** Lets every lane finish its current request, then resolves with every result. */
  stop(): Promise<TrafficResult[]>;
}

export async function chatRequest(baseUrl: string, key: string, options: { stream?: boolean; content?: string } = {}): Promise<TrafficResult> {
  const stream = options.stream ?? false;
  const startedAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", max_tokens: 16, stream, messages: [{ role: "user", content: options.content ?? "hello" }] }),
    });
    const text = await response.text();
    const complete = response.status === 200 && (!stream || (text.trimEnd().endsWith("data: [DONE]") && !text.includes('"error"')));
    return { requestId: response.headers.get("x-request-id") ?? "", status: response.status, stream, complete, startedAt, finishedAt: Date.now(), error: null };
  } catch (error) {
    return { requestId: "", status: 0, stream, complete: false, startedAt, finishedAt: Date.now(), error: String((error as Error).cause ?? error) };
  }
}

/** `lanes` concurrent loops alternating non-streaming and streaming requests with `key`. */
export function startTraffic(baseUrl: string, key: string, lanes: number): Traffic {
  const results: TrafficResult[] = [];
  let stopped = false;
  const lane = async (index: number) => {
    for (let n = 0; !stopped; n += 1) {
      results.push(await chatRequest(baseUrl, key, { stream: (index + n) % 2 === 1, content: `lane ${index} request ${n}` }));
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
  return {
    results,
    async stop() {
      stopped = true;
      await running;
      return results;
    },
  };
}
