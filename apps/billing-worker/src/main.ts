import { loadOrExit } from "@gateway/config";
import { loadBillingWorkerConfig } from "./config.ts";
import { startBillingWorker } from "./server.ts";

const config = loadOrExit(() => loadBillingWorkerConfig());
const billingWorker = await startBillingWorker(config);
billingWorker.services.logger.info({ url: billingWorker.url, concurrency: config.WORKER_CONCURRENCY }, "billing worker consuming");

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    billingWorker.services.logger.info({ signal }, "shutting down");
    billingWorker.close().then(
      () => process.exit(0),
      (error: unknown) => {
        billingWorker.services.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
