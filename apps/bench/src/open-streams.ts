import { Pool } from "undici";
import { cpuPercent, readCpuTicks, readRssBytes, sampleRss, ticksBetween } from "./process-stats.ts";
import type { OpenStreamsResult } from "./results.ts";
import type { RequestTarget } from "./request-target.ts";
import { timedStream } from "./stream-client.ts";

/**
 * Opens `streams` slow streams through the proxy at once (each its own connection, as HTTP/1.1
 * clients do) and holds them open; records the proxy's RSS and CPU meanwhile, and every failure.
 */
export async function runOpenStreams(target: RequestTarget, marker: string, streams: number, proxyPid: number, ticksPerSecond: number): Promise<OpenStreamsResult> {
  const pool = new Pool(new URL(target.url).origin, { connections: streams, pipelining: 1 });
  let open = 0;
  let peakOpen = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | null = null;
  const rssBeforeBytes = await readRssBytes(proxyPid);
  const rss = sampleRss(proxyPid);
  const cpuBefore = await readCpuTicks(proxyPid);
  const startedAt = performance.now();
  const hooks = {
    onOpen: () => {
      open += 1;
      peakOpen = Math.max(peakOpen, open);
    },
    onClose: () => {
      open -= 1;
    },
  };
  try {
    const outcomes = await Promise.all(Array.from({ length: streams }, () => timedStream(pool, target, marker, hooks)));
    for (const outcome of outcomes) {
      if (outcome.ok) completed += 1;
      else {
        errors += 1;
        firstError ??= outcome.error;
      }
    }
  } finally {
    await pool.close();
  }
  const elapsedMs = performance.now() - startedAt;
  const cpuAfter = await readCpuTicks(proxyPid);
  const peakRssBytes = await rss.stop();
  return {
    streams,
    completed,
    errors,
    peakOpen,
    seconds: elapsedMs / 1000,
    peakRssBytes,
    rssBeforeBytes,
    cpuPercent: cpuPercent(cpuBefore, cpuAfter, ticksPerSecond, elapsedMs),
    cpuUsPerStream: ((ticksBetween(cpuBefore, cpuAfter) / ticksPerSecond) * 1e6) / Math.max(1, completed),
    firstError,
  };
}
