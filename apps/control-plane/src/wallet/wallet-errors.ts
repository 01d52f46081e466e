import { GatewayError, type ErrorCode } from "@gateway/contracts";

/**
 * The wallet's own error codes (contract section 19). The envelope's `code` is what clients match
 * on; status and type come from the catalog entry named as `base`.
 * TODO(contracts): move these codes into @gateway/contracts' ErrorCode catalog.
 */
function walletError(base: ErrorCode, code: string, message: string, param: string | null = null, cause?: unknown): GatewayError {
  const error = new GatewayError(base, message, { param, cause });
  Object.defineProperty(error, "code", { value: code, enumerable: true });
  return error;
}

/** A used, expired or unknown redemption code: one answer for all three, so codes cannot be probed. */
export const codeInvalid = () => walletError("invalid_body", "code_invalid", "This redemption code is not valid: it is unknown, expired or already used.", "code");

/** A key that belongs to no customer has no wallet to credit; its code stays unused. */
export const keyWithoutCustomer = () =>
  walletError("invalid_body", "customer_required", "This key belongs to no customer, so there is no wallet to credit; the code was not used.", "code");

/** STRIPE_SECRET_KEY (or the webhook secret) is not set on the control plane. */
export const paymentsNotConfigured = (what: string) =>
  walletError("dependency_unavailable", "payments_not_configured", `Payments are not configured on this gateway (${what} is not set).`);

/** A webhook whose Stripe-Signature does not verify (missing, wrong secret, altered body, too old). */
export const invalidSignature = (cause?: unknown) =>
  walletError("invalid_header", "invalid_signature", "Stripe-Signature does not verify for this body.", "Stripe-Signature", cause);

/** Stripe refused or could not be reached: nothing was created. */
export const stripeUnavailable = (cause: unknown) =>
  walletError("upstream_error", "payment_provider_error", "The payment provider refused or did not answer; nothing was charged.", null, cause);
