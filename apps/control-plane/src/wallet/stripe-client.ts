import Stripe from "stripe";
import type { ControlPlaneConfig } from "../config.ts";

/**
 * The official Stripe SDK, built once from STRIPE_SECRET_KEY; null when payments are not
 * configured. STRIPE_API_BASE points it elsewhere (a local fake of Stripe's API in tests) through
 * the SDK's own `protocol`/`host`/`port` options.
 */
export function createStripeClient(config: Pick<ControlPlaneConfig, "STRIPE_SECRET_KEY" | "STRIPE_API_BASE">): Stripe | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : null;
  return new Stripe(config.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          protocol: base.protocol === "http:" ? "http" : "https",
          host: base.hostname,
          port: base.port || (base.protocol === "http:" ? 80 : 443),
        }
      : {}),
  });
}

/** The signature check needs no secret key: the SDK's static helpers verify with the webhook secret alone. */
export const stripeWebhooks = Stripe.webhooks;
export type { Stripe };
