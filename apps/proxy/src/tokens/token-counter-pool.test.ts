import { afterEach, describe, expect, it } from "vitest";
import { countChatTokens, countTextTokens } from "./count-tokens.ts";
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

describe("the token counter pool's threads", () => {
  it("count a plain text exactly as in process", async () => {
    const pool = poolOf(1, 8);
    for (const text of ["", "hello", " Tokenizers differ on émigré 東京 🙂 <|endoftext|>", "word ".repeat(5000)]) {
      expect(await pool.countText(text, "o200k_base")).toBe(await countTextTokens(text, "o200k_base"));
      expect(await pool.countText(text, "cl100k_base")).toBe(await countTextTokens(text, "cl100k_base"));
    }
  });

  it("end after being idle for a while, and start again on the next job", async () => {
    const pool = new TokenCounterPool({ threads: 2, maxQueued: 8, idleMs: 200 });
    pools.push(pool);
    expect(pool.threads).toBe(0);
    const both = [pool.countText("one", "o200k_base"), pool.countText("two", "o200k_base")];
    // Two jobs at once: two threads (each ends on its own once idle, so they are counted as they start).
    expect(pool.threads).toBe(2);
    expect(await Promise.all(both)).toEqual([1, 1]);
    await until(() => pool.threads === 0);
    expect(await pool.count(body("hello"), "o200k_base")).toBe(await countChatTokens(body("hello"), "o200k_base"));
    expect(pool.threads).toBe(1);
    await until(() => pool.threads === 0);
  });

  it("keep a thread that is used more often than its idle time", async () => {
    const pool = new TokenCounterPool({ threads: 1, maxQueued: 8, idleMs: 5_000 });
    pools.push(pool);
    const exits: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      expect(await pool.countText("again", "o200k_base")).toBe(1);
      exits.push(pool.threads);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(exits).toEqual([1, 1, 1, 1, 1, 1]);
  });
});

/** Polls `done` (every 20 ms, up to 10 s): no test depends on a timer firing at a given moment. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
