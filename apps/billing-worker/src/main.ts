import { loadOrExit } from "@gateway/config";
import { shutdownOnSignals } from "@gateway/http";
import { loadBillingWorkerConfig } from "./config.ts";
import { startBillingWorker } from "./server.ts";

const config = loadOrExit(() => loadBillingWorkerConfig());
const billingWorker = await startBillingWorker(config);
billingWorker.services.logger.info({ url: billingWorker.url, concurrency: config.WORKER_CONCURRENCY, batchSize: config.WORKER_BATCH_SIZE, batchWaitMs: config.WORKER_BATCH_WAIT_MS }, "billing worker consuming");

shutdownOnSignals(() => billingWorker.close(), billingWorker.services.logger);
