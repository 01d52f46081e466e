export * from "./records.ts";
export * from "./redis-keys.ts";
export * from "./record-store.ts";
export * from "./connect.ts";
export * from "./limit-store.ts";
export * from "./orphan-release.ts";
export * from "./in-flight-journal.ts";
export * from "./upstream-health.ts";
