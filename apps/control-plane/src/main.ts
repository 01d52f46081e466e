import { loadOrExit } from "@gateway/config";
import { loadControlPlaneConfig } from "./config.ts";
import { startControlPlane } from "./server.ts";

const config = loadOrExit(() => loadControlPlaneConfig());
const controlPlane = await startControlPlane(config);
controlPlane.services.logger.info({ url: controlPlane.url }, "control plane listening");

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    controlPlane.services.logger.info({ signal }, "shutting down");
    controlPlane.close().then(
      () => process.exit(0),
      (error: unknown) => {
        controlPlane.services.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
