import { afterEach, describe, expect, it } from "vitest";
import { countChatTokens } from "./count-tokens.ts";
import { TokenCounterPool } from "./token-counter-pool.ts";

const pools: TokenCounterPool[] = [];
const poolOf = (threads: number, maxQueued: number) => {
  const pool = new TokenCounterPool({ threads, maxQueued });
  pools.push(pool);
  return pool;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

const body = (text: string) => ({ messages: [{ role: "system", content: "Be brief." }, { role: "user", content: text }] });

describe("the token counter pool", () => {
  it("counts on a worker thread exactly as in process", async () => {
    const pool = poolOf(1, 8);
    const texts = ["hello", "How many tokens is this sentence?", "的一是不了人 👍🏽 <|endoftext|>"];
    const counted = await Promise.all(texts.map((text) => pool.count(body(text), "o200k_base")));
    expect(counted).toEqual(await Promise.all(texts.map((text) => countChatTokens(body(text), "o200k_base"))));
    expect(await pool.count(body("hello"), "cl100k_base")).toBe(await countChatTokens(body("hello"), "cl100k_base"));
  });

  it("refuses (503) what would wait past its queue, and fails what waits when it closes", async () => {
    const pool = poolOf(1, 1);
    const running = pool.count(body("one"), "o200k_base");
    const queued = pool.count(body("two"), "o200k_base");
    await expect(pool.count(body("three"), "o200k_base")).rejects.toMatchObject({ status: 503, code: "dependency_unavailable" });
    expect(await running).toBeGreaterThan(0);
    expect(await queued).toBeGreaterThan(0);
    const waiting = [pool.count(body("four"), "o200k_base"), pool.count(body("five"), "o200k_base")];
    const settled = Promise.allSettled(waiting);
    await pool.close();
    expect((await settled).map((result) => result.status)).toContain("rejected");
  });
});
