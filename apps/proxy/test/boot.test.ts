import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));

describe("start-up configuration", () => {
  it("an invalid setting stops start-up with a message naming the variable", () => {
    const result = spawnSync(process.execPath, [main], { env: { ...process.env, PORT: "seventy", REDIS_URL: "http://nope" }, encoding: "utf8", timeout: 10_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/proxy: invalid configuration/);
    expect(result.stderr).toMatch(/PORT:/);
    expect(result.stderr).toMatch(/REDIS_URL:/);
  });
});
