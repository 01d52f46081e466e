export * from "./ids.ts";
export * from "./secrets.ts";
export * from "./errors.ts";
export * from "./money.ts";
export * from "./billing-event.ts";
export * from "./pricing.ts";
export * from "./budget-period.ts";
export * from "./price-sheet.ts";
