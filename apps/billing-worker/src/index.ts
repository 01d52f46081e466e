export { loadBillingWorkerConfig, type BillingWorkerConfig } from "./config.ts";
export { createBillingWorkerServices, type BillingWorkerServices } from "./services.ts";
export { startBillingWorker, type RunningBillingWorker } from "./server.ts";
export { createBillingJobHandler, type BillingBatchResult, type BillingEventResult, type BillingJobDependencies, type BillingJobLike, type BillingJobResult } from "./billing-job.ts";
export { createLedgerBatcher, createQueueWorker } from "./queue-worker.ts";
export { LedgerBatcher, type LedgerBatcherOptions } from "./ledger-batcher.ts";
export { PriceLoader } from "./price-loader.ts";
export { recordUsage, recordUsageBatch, utcDay, type LedgerConnection, type LedgerEntry, type RecordOutcome } from "./record-usage.ts";
export { billingQueueCounts, type BillingQueueCounts } from "./queue-metrics.ts";
