export { loadControlPlaneConfig, type ControlPlaneConfig } from "./config.ts";
export { createControlPlaneServices, type ControlPlaneServices } from "./services.ts";
export { startControlPlane, type RunningControlPlane } from "./server.ts";
export { applyGatewayFile } from "./config-file/apply-gateway-file.ts";
export { mintKey, revokeKey, rebuildKeyRecords } from "./keys/key-service.ts";
export { createVendorToken } from "./vendors/vendor-tokens.ts";
export { publishSnapshot } from "./snapshot/publish-snapshot.ts";
export { rebuildRedis } from "./rebuild-redis.ts";
