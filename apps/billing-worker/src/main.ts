import { loadOrExit } from "@gateway/config";
import { shutdownOnSignals } from "@gateway/http";
import { loadBillingWorkerConfig } from "./config.ts";
import { startBillingWorker } from "./server.ts";

const config = loadOrExit(() => loadBillingWorkerConfig());
const billingWorker = await startBillingWorker(config);
billingWorker.services.logger.info({ url: billingWorker.url, concurrency: config.WORKER_CONCURRENCY }, "billing worker consuming");

shutdownOnSignals(() => billingWorker.close(), billingWorker.services.logger);
