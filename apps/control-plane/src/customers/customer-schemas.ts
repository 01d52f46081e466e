import { BUDGET_PERIODS, MAX_MONEY_NANO, parseUsdToNano } from "@gateway/contracts";
import { PLAN_WINDOWS } from "@gateway/redis-store";
import { z } from "zod";
import { budgetInput, isoDateTime, listOf, metadataInput, pageQuerySchema, plainText, usdAmount } from "../vendors/api-schemas.ts";

/**
 * Bodies, queries and objects of customers, plans and subscriptions (contract section 19), in the
 * vendor API's conventions (api-schemas.ts): strict bodies, USD as decimal strings, prefixed ids.
 */

const email = z.email().max(320);

export const createCustomerBodySchema = z.strictObject({
  name: plainText(200).min(1).describe("The customer's name."),
  email: email.nullable().default(null),
  metadata: metadataInput.default({}).describe("Your own data (at most 16 KiB, 8 levels), returned as given."),
  budget: budgetInput.nullable().default(null).describe("Spend per UTC period over all the customer's keys together; 429 `budget_exceeded` once spent."),
  billing: z.enum(["postpaid", "prepaid"]).default("postpaid").describe("`prepaid`: the customer's keys draw on its wallet balance (429 `balance_exhausted` at zero)."),
});
export type CreateCustomerBody = z.output<typeof createCustomerBodySchema>;

export const updateCustomerBodySchema = z.strictObject({
  name: plainText(200).min(1).optional(),
  email: email.nullable().optional(),
  metadata: metadataInput.optional(),
  budget: budgetInput.nullable().optional(),
  status: z.enum(["active", "disabled"]).optional().describe("`disabled`: every key of the customer gets 401 `key_disabled` until it is `active` again."),
});
export type UpdateCustomerBody = z.output<typeof updateCustomerBodySchema>;

export const customerListQuerySchema = pageQuerySchema.extend({
  search: z.string().min(1).max(200).optional().describe("Case-insensitive match on the name or email, or the exact id."),
  status: z.enum(["active", "disabled"]).optional(),
});

export const subscriptionListQuerySchema = pageQuerySchema.extend({
  status: z.enum(["active", "canceled"]).optional().describe("Only the active one, or only those that ended (canceled, replaced or lapsed unpaid)."),
});

const planLimitInput = z
  .strictObject({
    window: z.enum(PLAN_WINDOWS).describe("Rolling: a window opens at its first request and lasts 5 hours, a day, a week or 30 days."),
    requests: z.number().int().positive().max(2_147_483_647).optional().describe("Requests per window."),
    usd: usdAmount.optional().describe("USD per window (reserved like a budget, settled at the actual cost)."),
  })
  .refine((limit) => limit.requests !== undefined || limit.usd !== undefined, { message: "give requests and/or usd", path: ["requests"] });

export const createPlanBodySchema = z
  .strictObject({
    name: plainText(200).min(1),
    price: usdAmount.describe("What the plan costs per period, USD."),
    period: z.enum(BUDGET_PERIODS).default("month"),
    limits: z.array(planLimitInput).min(1).max(8),
    models: z.array(plainText(200).min(1)).max(200).default([]).describe("Public model names the plan allows; empty = every model of the key's server option."),
  })
  .superRefine((body, context) => {
    const seen = new Set<string>();
    body.limits.forEach((limit, index) => {
      if (seen.has(limit.window)) context.addIssue({ code: "custom", message: `a second ${limit.window} window`, path: ["limits", index, "window"] });
      seen.add(limit.window);
    });
  });
export type CreatePlanBody = z.output<typeof createPlanBodySchema>;

export const createSubscriptionBodySchema = z.strictObject({
  plan_id: z.string().min(1).max(200).describe("The plan (`plan_...`)."),
});

// ---------------------------------------------------------------- objects

export const subscriptionSchema = z.object({
  id: z.string().describe("sub_..."),
  object: z.literal("subscription"),
  customer_id: z.string(),
  plan_id: z.string(),
  status: z.enum(["active", "canceled"]),
  current_period_start: isoDateTime,
  current_period_end: isoDateTime,
  created_at: isoDateTime,
  canceled_at: isoDateTime.nullable(),
});
export type SubscriptionObject = z.output<typeof subscriptionSchema>;

export const customerSchema = z.object({
  id: z.string().describe("cus_..."),
  object: z.literal("customer"),
  name: z.string(),
  email: z.string().nullable(),
  status: z.enum(["active", "disabled"]),
  billing: z.enum(["postpaid", "prepaid"]),
  balance: z.string().describe("USD, 6 decimals: the wallet's entries (credits less plan charges) minus the ledger spend of the customer's keys (prepaid); the entries alone (postpaid: below zero when plan charges pass the credits, what it owes)."),
  budget: z
    .object({ limit: z.string(), period: z.enum(BUDGET_PERIODS), used: z.string().describe("USD spent by its keys in the current period, from the ledger."), resets_at: isoDateTime })
    .nullable(),
  metadata: z.record(z.string(), z.unknown()),
  subscription: subscriptionSchema.nullable().describe("The active subscription, if any."),
  created_at: isoDateTime,
});
export type CustomerObject = z.output<typeof customerSchema>;

export const planSchema = z.object({
  id: z.string().describe("plan_..."),
  object: z.literal("plan"),
  name: z.string(),
  price: z.string(),
  period: z.enum(BUDGET_PERIODS),
  limits: z.array(z.object({ window: z.enum(PLAN_WINDOWS), requests: z.number().int().nullable(), usd: z.string().nullable() })),
  models: z.array(z.string()),
  status: z.enum(["active", "archived"]),
  created_at: isoDateTime,
});
export type PlanObject = z.output<typeof planSchema>;

export const customerListSchema = listOf(customerSchema);
export const planListSchema = listOf(planSchema);
export const subscriptionListSchema = listOf(subscriptionSchema);

export { MAX_MONEY_NANO, parseUsdToNano };
