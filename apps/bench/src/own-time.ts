// What `BENCH_OWN_TIME=1 pnpm bench` reports (own-time-preload.ts loads it into the proxy): each
// proxied request's time inside the proxy (its request event to its response's finish) less the time of its upstream
// call (undici's `undici:request:create` to `:trailers`, the end of the upstream's body), matched
// by the `x-request-id` the proxy sends upstream. What is left is the gateway's own part of a
// request, whatever the upstream (the simulator, on the load core) took; printed to stderr at
// SIGTERM as one `[own-time]` line for the whole run (every row), which scripts/bench.sh echoes.
// A diagnostic: it costs the proxy a little per request, so never use it for the CPU figures.
import { summarize } from "./percentiles.ts";

/** The `x-request-id` of an undici request (its headers are a raw block or a flat name/value list). */
export function upstreamRequestId(headers: string | string[]): string | null {
  if (typeof headers === "string") return /^x-request-id: ?([^\r\n]+)/im.exec(headers)?.[1] ?? null;
  for (let index = 0; index + 1 < headers.length; index += 2) {
    if (headers[index]!.toLowerCase() === "x-request-id") return headers[index + 1]!;
  }
  return null;
}

/** Each request's own time: its time in the proxy minus its upstream calls' (ms); requests without one are left out. */
export class OwnTime {
  private readonly upstreamMs = new Map<string, number>();
  readonly own: number[] = [];
  readonly total: number[] = [];

  upstreamCall(requestId: string, ms: number): void {
    this.upstreamMs.set(requestId, (this.upstreamMs.get(requestId) ?? 0) + ms);
  }

  finished(requestId: string, totalMs: number): void {
    const upstream = this.upstreamMs.get(requestId);
    if (upstream === undefined) return;
    this.upstreamMs.delete(requestId);
    this.own.push(totalMs - upstream);
    this.total.push(totalMs);
  }

  report(): string {
    const own = summarize(this.own);
    const total = summarize(this.total);
    const ms = (value: number) => value.toFixed(3);
    return `[own-time] ${own.count} requests: the proxy's own part p50 ${ms(own.p50)} / p99 ${ms(own.p99)} / p99.9 ${ms(own.p999)} ms; with the upstream's, p50 ${ms(total.p50)} / p99 ${ms(total.p99)} / p99.9 ${ms(total.p999)} ms`;
  }
}
