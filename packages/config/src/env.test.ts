import { describe, expect, it } from "vitest";
import { ConfigError, envVars, parseEnv } from "./env.ts";

const shape = { PORT: envVars.port(8080), REDIS_URL: envVars.redisUrl(), FLAG: envVars.bool(false), LOG_LEVEL: envVars.logLevel() };

describe("parseEnv", () => {
  it("applies defaults and coerces types into a frozen object", () => {
    const config = parseEnv("app", shape, { PORT: "9000", FLAG: "true" });
    expect(config).toEqual({ PORT: 9000, REDIS_URL: "redis://127.0.0.1:6379", FLAG: true, LOG_LEVEL: "info" });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("names every invalid variable in one message", () => {
    const error = (() => {
      try {
        parseEnv("proxy", shape, { PORT: "not-a-port", REDIS_URL: "http://wrong", LOG_LEVEL: "loud" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^proxy: invalid configuration/);
    expect(message).toMatch(/PORT:/);
    expect(message).toMatch(/REDIS_URL: must be a redis:\/\/ URL/);
    expect(message).toMatch(/LOG_LEVEL:/);
  });

  it("refuses a port out of range", () => {
    expect(() => parseEnv("app", shape, { PORT: "70000" })).toThrow(/PORT/);
  });
});
