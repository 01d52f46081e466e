import { loadOrExit } from "@gateway/config";
import { shutdownOnSignals } from "@gateway/http";
import { loadControlPlaneConfig } from "./config.ts";
import { startControlPlane } from "./server.ts";

const config = loadOrExit(() => loadControlPlaneConfig());
const controlPlane = await startControlPlane(config);
controlPlane.services.logger.info({ url: controlPlane.url }, "control plane listening");

shutdownOnSignals(() => controlPlane.close(), controlPlane.services.logger);
