import { z } from "zod";
import { pageQuerySchema } from "../vendors/api-schemas.ts";
import { errorResponses, jsonRequestBody, jsonResponse, queryParameters, type JsonObject, type NamedSchemas } from "../vendors/openapi/json-schema.ts";
import { requestIdHeader } from "../vendors/openapi/responses.ts";
import type { VendorScope } from "../vendors/vendor-tokens.ts";
import { grantedWalletEntrySchema, paymentListSchema, walletEntryListSchema } from "./wallet-objects.ts";
import { autoTopUpBodySchema, checkoutBodySchema, grantBodySchema, redemptionCodesBodySchema } from "./wallet-schemas.ts";

/** The OpenAPI part of the wallet (contract section 19: grants, codes, card payments, auto top-up), merged into the vendor API's document. */
const usd = (description: string) => z.string().describe(`${description} USD, 6 decimals.`);

const createdCodeSchema = z.object({ id: z.string(), object: z.literal("redemption_code"), code: z.string().describe("`rc_...`, shown only here."), amount: usd("Credited on redemption."), expires_at: z.string().nullable() });
const createdCodeListSchema = z.object({ object: z.literal("list"), data: z.array(createdCodeSchema), has_more: z.boolean(), next_cursor: z.string().nullable() });
const redemptionCodeSchema = z.object({
  id: z.string(),
  object: z.literal("redemption_code"),
  prefix: z.string(),
  amount: usd("Credited on redemption."),
  status: z.enum(["active", "redeemed", "expired"]),
  expires_at: z.string().nullable(),
  redeemed_at: z.string().nullable(),
  redeemed_by_customer_id: z.string().nullable(),
  redeemed_by_key_id: z.string().nullable(),
  created_at: z.string(),
});
const redemptionCodeListSchema = z.object({ object: z.literal("list"), data: z.array(redemptionCodeSchema), has_more: z.boolean(), next_cursor: z.string().nullable() });
const checkoutSessionSchema = z.object({ id: z.string().describe("Stripe's Checkout Session id."), object: z.literal("checkout_session"), url: z.string().describe("Where the customer pays."), payment_id: z.string(), amount: usd("To be paid.") });
const autoTopUpSchema = z.object({
  object: z.literal("auto_top_up"),
  customer_id: z.string(),
  enabled: z.boolean(),
  below: usd("Threshold.").nullable(),
  amount: usd("Charged each time.").nullable(),
  payment_method_saved: z.boolean().describe("A checkout saved a card; without one nothing is charged."),
});

export const walletApiSchemas: { input: NamedSchemas; output: NamedSchemas } = {
  input: [
    [grantBodySchema, "GrantCreditRequest"],
    [redemptionCodesBodySchema, "CreateRedemptionCodesRequest"],
    [checkoutBodySchema, "CreateCheckoutSessionRequest"],
    [autoTopUpBodySchema, "SetAutoTopUpRequest"],
  ],
  output: [
    [grantedWalletEntrySchema, "WalletEntry"],
    [walletEntryListSchema, "WalletEntryList"],
    [paymentListSchema, "PaymentList"],
    [createdCodeListSchema, "CreatedRedemptionCodeList"],
    [redemptionCodeListSchema, "RedemptionCodeList"],
    [checkoutSessionSchema, "CheckoutSession"],
    [autoTopUpSchema, "AutoTopUp"],
  ],
};

function operation(operationId: string, summary: string, scope: VendorScope, rest: JsonObject): JsonObject {
  return { operationId, summary, tags: ["vendor"], security: [{ vendorToken: [scope] }], ...rest };
}
const ok = (schemaId: string, description: string) => jsonResponse(schemaId, description, { headers: requestIdHeader });
const AUTH = ["400", "401", "403", "500"];
const CUSTOMER_ID = { name: "id", in: "path", required: true, description: "The customer's id, `cus_...`.", schema: { type: "string" } };

export function walletApiPaths(): Record<string, JsonObject> {
  return {
    "/api/customers/{id}/credits": {
      parameters: [CUSTOMER_ID],
      post: operation("grantCredit", "Grant credit to a customer's wallet", "customers:write", {
        description: "Audited (`customer.credited`, with the token and request id). An `Idempotency-Key` makes a retried grant credit once.",
        requestBody: jsonRequestBody("GrantCreditRequest", true),
        responses: { "201": ok("WalletEntry", "The wallet entry and the balance after it."), ...errorResponses(...AUTH, "404", "409", "503") },
      }),
    },
    "/api/customers/{id}/wallet/entries": {
      parameters: [CUSTOMER_ID],
      get: operation("listWalletEntries", "List a customer's wallet entries, newest first", "customers:read", {
        description: "Every credit (grant, payment, code, auto top-up) and every debit (`plan`: a plan's price per period, negative). Their sum is the wallet's credits in `balance`.",
        parameters: queryParameters(pageQuerySchema),
        responses: { "200": ok("WalletEntryList", "A page of entries."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/customers/{id}/payments": {
      parameters: [CUSTOMER_ID],
      get: operation("listPayments", "List a customer's card payments, newest first", "customers:read", {
        description: "Checkout payments (pending until Stripe's webhook) and auto top-up charges.",
        parameters: queryParameters(pageQuerySchema),
        responses: { "200": ok("PaymentList", "A page of payments."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/customers/{id}/checkout-sessions": {
      parameters: [CUSTOMER_ID],
      post: operation("createCheckoutSession", "Take a card payment into a customer's wallet (Stripe Checkout)", "customers:write", {
        description:
          "A Checkout Session in payment mode; the wallet is credited once Stripe's signed `checkout.session.completed` reaches `POST /webhooks/stripe` (once per event and per session). The card is saved for auto top-up. 503 `payments_not_configured` without STRIPE_SECRET_KEY.",
        requestBody: jsonRequestBody("CreateCheckoutSessionRequest", true),
        responses: { "201": ok("CheckoutSession", "Send the customer to `url`."), ...errorResponses(...AUTH, "404", "502", "503") },
      }),
    },
    "/api/customers/{id}/auto-top-up": {
      parameters: [CUSTOMER_ID],
      get: operation("getAutoTopUp", "A customer's auto top-up", "customers:read", {
        responses: { "200": ok("AutoTopUp", "The setting."), ...errorResponses(...AUTH, "404") },
      }),
      post: operation("setAutoTopUp", "Set or clear a customer's auto top-up", "customers:write", {
        description: "Below `below` USD, `amount` USD is charged off-session to the card the customer's last checkout saved, once per crossing. `{\"below\":null,\"amount\":null}` turns it off.",
        requestBody: jsonRequestBody("SetAutoTopUpRequest", true),
        responses: { "200": ok("AutoTopUp", "The setting."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/redemption-codes": {
      post: operation("createRedemptionCodes", "Mint redemption codes", "customers:write", {
        description: "The plaintext codes appear only in this answer. A key holder redeems one with `POST /v1/redeem`.",
        requestBody: jsonRequestBody("CreateRedemptionCodesRequest", true),
        responses: { "201": ok("CreatedRedemptionCodeList", "The codes, shown once."), ...errorResponses(...AUTH) },
      }),
      get: operation("listRedemptionCodes", "List your redemption codes, newest first", "customers:read", {
        parameters: queryParameters(pageQuerySchema),
        responses: { "200": ok("RedemptionCodeList", "A page of codes, never a plaintext."), ...errorResponses(...AUTH) },
      }),
    },
  };
}
