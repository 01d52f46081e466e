export * from "./env.ts";
export * from "./gateway-file.ts";
