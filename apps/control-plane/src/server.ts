import { readFile } from "node:fs/promises";
import { parseGatewayFile } from "@gateway/config";
import { listen, type Listening } from "@gateway/http";
import { redisReady } from "@gateway/redis-store";
import { createControlPlaneApp } from "./app.ts";
import { createControlPlaneServices, type ControlPlaneServices } from "./services.ts";
import type { ControlPlaneConfig } from "./config.ts";
import { applyGatewayFile } from "./config-file/apply-gateway-file.ts";
import { rebuildRedis } from "./rebuild-redis.ts";
import { RedisWatchdog } from "./redis-watchdog.ts";
import { createWebhookDeliverer } from "./webhooks/start-deliverer.ts";
import type { WebhookDeliverer } from "./webhooks/deliverer.ts";
import { WalletSweep } from "./wallet/wallet-sweep.ts";
import { createWalletContext } from "./wallet/mount-wallet-routes.ts";
import { SubscriptionRenewal } from "./customers/subscription-renewal.ts";
import { customerStores } from "./routes/api-customers.ts";

export interface RunningControlPlane {
  url: string;
  port: number;
  http: Listening;
  services: ControlPlaneServices;
  watchdog: RedisWatchdog;
  /** Sends due webhook deliveries (one loop per process). */
  deliverer: WebhookDeliverer;
  /** Prepaid customers' balances: customer.balance_low once per crossing, auto top-up of saved cards. */
  walletSweep: WalletSweep;
  /** Subscriptions whose period ended: renewed and charged, or lapsed. */
  subscriptionRenewal: SubscriptionRenewal;
  close(): Promise<void>;
}

/**
 * Boots the control plane: applies the gateway file if one is configured, rebuilds every Redis
 * record from Postgres (so a flushed Redis recovers), then serves.
 */
export async function startControlPlane(config: ControlPlaneConfig, logger?: ControlPlaneServices["logger"]): Promise<RunningControlPlane> {
  const services = createControlPlaneServices(config, logger);
  await redisReady(services.redis);
  if (config.GATEWAY_CONFIG_FILE) {
    const file = parseGatewayFile(await readFile(config.GATEWAY_CONFIG_FILE, "utf8"), config.GATEWAY_CONFIG_FILE);
    const report = await applyGatewayFile(services.db.prisma, services.records, file);
    services.logger.info(report, "gateway file applied");
  }
  const rebuilt = await rebuildRedis(services);
  services.logger.info(rebuilt, "redis records rebuilt from postgres");
  const state = { shuttingDown: false };
  const http = await listen(createControlPlaneApp(services, state), config.PORT, config.HOST);
  const watchdog = new RedisWatchdog(services, config.REDIS_WATCH_INTERVAL_MS);
  watchdog.start();
  const deliverer = createWebhookDeliverer(services);
  deliverer.start();
  const walletSweep = new WalletSweep(createWalletContext(services), config.WALLET_CHECK_INTERVAL_MS);
  walletSweep.start();
  const subscriptionRenewal = new SubscriptionRenewal({ prisma: services.db.prisma, stores: customerStores(services), logger: services.logger }, config.SUBSCRIPTION_RENEW_INTERVAL_MS);
  subscriptionRenewal.start();
  let closing: Promise<void> | null = null;
  return {
    url: http.url,
    port: http.port,
    http,
    services,
    watchdog,
    deliverer,
    walletSweep,
    subscriptionRenewal,
    close() {
      closing ??= (async () => {
        state.shuttingDown = true;
        await watchdog.stop();
        await deliverer.stop();
        await walletSweep.stop();
        await subscriptionRenewal.stop();
        await http.close(config.SHUTDOWN_DEADLINE_MS);
        await services.close();
      })();
      return closing;
    },
  };
}
