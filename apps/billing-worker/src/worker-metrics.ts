import type { Worker } from "bullmq";
import { Counter, createRegistry, Gauge, Histogram, LATENCY_BUCKETS, type Registry } from "@gateway/metrics";
import { billingQueueCounts } from "./queue-metrics.ts";
import type { BillingJobResult } from "./billing-job.ts";
import type { LedgerBatcher } from "./ledger-batcher.ts";
import type { OrphanSweeper } from "./orphan-sweeper.ts";
import type { BillingWorkerServices } from "./services.ts";

const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * The worker's metrics: queue depth (what the autoscaler scales on), billing lag (request end to
 * ledger row), throughput by outcome, and the ledger batches' sizes and statement times.
 */
export function createWorkerMetrics(services: BillingWorkerServices, worker: Worker<unknown, BillingJobResult>, batcher: LedgerBatcher, sweeper?: OrphanSweeper): Registry {
  const registry = createRegistry("billing-worker");
  const registers = [registry];
  for (const state of ["waiting", "active", "delayed", "failed"] as const) {
    new Gauge({
      name: `billing_queue_${state}`,
      help: `Billing jobs ${state} in the queue.`,
      registers,
      async collect() {
        const counts = await billingQueueCounts(services.queue).catch(() => null);
        if (counts) this.set(counts[state]);
      },
    });
  }
  const jobs = new Counter({ name: "billing_jobs_total", help: "Billing jobs (a batch of events, or one event) handled, by outcome (completed, failed: every failed attempt).", labelNames: ["outcome"], registers });
  const events = new Counter({ name: "billing_events_total", help: "Billing events written to the ledger, by outcome (recorded, duplicate).", labelNames: ["outcome"], registers });
  const lag = new Histogram({ name: "billing_lag_seconds", help: "From the request's end to its ledger row.", buckets: LATENCY_BUCKETS, registers });
  worker.on("completed", () => jobs.inc({ outcome: "completed" }));
  worker.on("failed", () => jobs.inc({ outcome: "failed" }));
  const batchSize = new Histogram({ name: "billing_batch_size", help: "Events written to the ledger per statement (committed batches).", buckets: BATCH_SIZE_BUCKETS, registers });
  const batchSeconds = new Histogram({ name: "billing_batch_seconds", help: "Time of a committed batch's ledger statement.", buckets: LATENCY_BUCKETS, registers });
  batcher.onWritten((entries, outcomes, seconds) => {
    batchSize.observe(entries.length);
    batchSeconds.observe(seconds);
    const now = Date.now();
    let recorded = 0;
    outcomes.forEach((outcome, index) => {
      if (outcome !== "recorded") return;
      recorded += 1;
      lag.observe(Math.max(0, now - entries[index]!.event.finishedAt) / 1000);
    });
    if (recorded > 0) events.inc({ outcome: "recorded" }, recorded);
    if (recorded < outcomes.length) events.inc({ outcome: "duplicate" }, outcomes.length - recorded);
  });
  // A proxy process that died with requests open (SIGKILL, OOM): worth an alert of its own.
  const deadProcesses = new Counter({ name: "billing_dead_proxy_processes_total", help: "Proxy processes whose in-flight journal was swept (their heartbeat ran out).", registers });
  const interrupted = new Counter({ name: "billing_interrupted_requests_total", help: "Requests of dead proxy processes billed `interrupted` from their last checkpoint.", registers });
  sweeper?.onSwept((requests) => {
    deadProcesses.inc();
    if (requests > 0) interrupted.inc(requests);
  });
  return registry;
}
