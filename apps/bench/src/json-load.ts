import autocannon from "autocannon";
import { Samples } from "./percentiles.ts";
import { runFigures, type RunFigures } from "./results.ts";
import type { RequestTarget } from "./request-target.ts";

/**
 * Non-streaming load with autocannon (keep-alive, one request in flight per connection).
 * autocannon's own histogram keeps whole milliseconds; the sub-millisecond differences this bench
 * is about need the float duration of every response, taken from its `response` event.
 */
export async function runJsonLoad(target: RequestTarget, connections: number, durationS: number): Promise<RunFigures> {
  const latencies = new Samples();
  let errors = 0;
  const startedAt = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = {
      url: target.url,
      method: "POST" as const,
      headers: target.headers,
      body: target.body,
      connections,
      pipelining: 1,
      duration: durationS,
      timeout: 30,
    };
    const instance = autocannon(options, (error, done) => (error ? reject(error) : resolve(done)));
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else errors += 1;
    });
  });
  // Socket errors and timeouts (counted in `errors` too) never reach the `response` event.
  return runFigures(latencies, errors + result.errors, startedAt);
}
