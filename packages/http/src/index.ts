export * from "./request-context.ts";
export * from "./json-body.ts";
export * from "./send-error.ts";
export * from "./send-json.ts";
export * from "./error-handler.ts";
export * from "./listen.ts";
export * from "./slow-auth-failures.ts";
export * from "./shutdown-on-signals.ts";
