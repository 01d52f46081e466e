import { Pool } from "undici";
import { Samples } from "./percentiles.ts";
import { runFigures, type RunFigures } from "./results.ts";
import type { RequestTarget } from "./request-target.ts";
import { timedStream } from "./stream-client.ts";

/** Streaming load: `concurrency` clients, each sending its next stream when the last one ended, for `durationS`. */
export async function runStreamLoad(target: RequestTarget, marker: string, concurrency: number, durationS: number): Promise<RunFigures> {
  const pool = new Pool(new URL(target.url).origin, { connections: concurrency, pipelining: 1 });
  const firstByte = new Samples();
  const total = new Samples();
  let errors = 0;
  let firstError: string | null = null;
  const startedAt = performance.now();
  const deadline = startedAt + durationS * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const outcome = await timedStream(pool, target, marker);
      if (outcome.ok) {
        firstByte.push(outcome.timing.firstByteMs);
        total.push(outcome.timing.totalMs);
      } else {
        errors += 1;
        firstError ??= outcome.error;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, client));
  } finally {
    await pool.close();
  }
  if (firstError) process.stderr.write(`  stream errors (${errors}), first: ${firstError}\n`);
  return runFigures(total, errors, startedAt, firstByte);
}
