import { z } from "zod";
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

  it("trusts x-forwarded-for from loopback only by default; names, addresses and ranges when set", () => {
    const trust = { TRUST_PROXY: envVars.trustProxy() };
    expect(parseEnv("app", trust, {}).TRUST_PROXY).toEqual(["loopback"]);
    expect(parseEnv("app", trust, { TRUST_PROXY: "loopback, uniquelocal, 10.0.0.0/8" }).TRUST_PROXY).toEqual(["loopback", "uniquelocal", "10.0.0.0/8"]);
    expect(parseEnv("app", trust, { TRUST_PROXY: "false" }).TRUST_PROXY).toEqual([]);
    expect(() => parseEnv("app", trust, { TRUST_PROXY: "everyone" })).toThrow(ConfigError);
  });

  it("refuses a port out of range", () => {
    expect(() => parseEnv("app", shape, { PORT: "70000" })).toThrow(/PORT/);
  });

  it("reads Redis Cluster or Sentinel nodes as host:port lists, empty meaning none", () => {
    const redis = { NODES: envVars.redisNodes(), NAME: envVars.redisSentinelName() };
    expect(parseEnv("app", redis, { NODES: "10.0.0.1:7000, redis-1.redis:7001" })).toEqual({
      NODES: [{ host: "10.0.0.1", port: 7000 }, { host: "redis-1.redis", port: 7001 }],
      NAME: "mymaster",
    });
    expect(parseEnv("app", redis, { NODES: "" }).NODES).toBeUndefined();
    expect(parseEnv("app", redis, {}).NODES).toBeUndefined();
    expect(() => parseEnv("app", redis, { NODES: "10.0.0.1:7000,redis-1" })).toThrow(/NODES: "redis-1" is not host:port/);
    expect(() => parseEnv("app", redis, { NODES: "h:99999" })).toThrow(/NODES/);
  });

  it("refuses a secret's development default in production, set or defaulted, and names it", () => {
    const secrets = { TOKEN: envVars.secret("dev-token-change-me-please"), NODE_ENV: z.string().optional() };
    expect(parseEnv("app", secrets, {}).TOKEN).toBe("dev-token-change-me-please");
    expect(() => parseEnv("app", secrets, { NODE_ENV: "production" })).toThrow(/TOKEN: the development default is refused in production/);
    expect(() => parseEnv("app", secrets, { NODE_ENV: "production", TOKEN: "dev-token-change-me-please" })).toThrow(/TOKEN/);
    expect(parseEnv("app", secrets, { NODE_ENV: "production", TOKEN: "a-real-secret-0123456789" }).TOKEN).toBe("a-real-secret-0123456789");
    expect(() => parseEnv("app", secrets, { TOKEN: "short" })).toThrow(/TOKEN: at least 16 characters/);
  });
});
