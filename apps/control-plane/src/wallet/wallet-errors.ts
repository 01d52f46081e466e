import { GatewayError, type ErrorCode } from "@gateway/contracts";

/** The wallet's errors (contract section 19); their codes are in @gateway/contracts' catalog. */
function walletError(code: ErrorCode, message: string, param: string | null = null, cause?: unknown): GatewayError {
  return new GatewayError(code, message, { param, cause });
}

/** A used, expired or unknown redemption code: one answer for all three, so codes cannot be probed. */
export const codeInvalid = () => walletError("code_invalid", "This redemption code is not valid: it is unknown, expired or already used.", "code");

/** A key that belongs to no customer has no wallet to credit; its code stays unused. */
export const keyWithoutCustomer = () =>
  walletError("customer_required", "This key belongs to no customer, so there is no wallet to credit; the code was not used.", "code");

/** STRIPE_SECRET_KEY (or the webhook secret) is not set on the control plane. */
export const paymentsNotConfigured = (what: string) =>
  walletError("payments_not_configured", `Payments are not configured on this gateway (${what} is not set).`);

/** A webhook whose Stripe-Signature does not verify (missing, wrong secret, altered body, too old). */
export const invalidSignature = (cause?: unknown) =>
  walletError("invalid_signature", "Stripe-Signature does not verify for this body.", "Stripe-Signature", cause);

/** Stripe refused or could not be reached: nothing was created. */
export const stripeUnavailable = (cause: unknown) =>
  walletError("payment_provider_error", "The payment provider refused or did not answer; nothing was charged.", null, cause);
