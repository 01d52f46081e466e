import { describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import type { ModelRecord, RecordStore, RoutingSnapshot } from "@gateway/redis-store";
import { aliasPattern, RoutingTable } from "./routing-table.ts";

function modelRecord(name: string, position: number, aliases: string[]): ModelRecord {
  return { name, displayName: name, ownedBy: "gateway", created: 0, aliases, dropParams: [], position, targets: [], capabilities: { maxOutputTokens: 4096, contextWindow: 128000, reasoning: false, sampling: true, midConversationSystem: true, vision: true, tools: true } };
}

/** A routing table over a snapshot held in memory (what Redis would hand it). */
async function table(models: ModelRecord[], version = 1): Promise<RoutingTable> {
  const snapshot: RoutingSnapshot = {
    version,
    publishedAt: 0,
    upstreams: {},
    models: Object.fromEntries(models.map((model) => [model.name, model])),
    serverOptions: {},
  };
  const store = { readSnapshot: async () => snapshot } as unknown as RecordStore;
  const routing = new RoutingTable(store, createLogger({ name: "test", level: "silent" }));
  await routing.refresh();
  return routing;
}

describe("aliasPattern", () => {
  it("matches * as any run of characters, everything else literally", () => {
    const dated = aliasPattern("claude-sonnet-4-5-2025*");
    expect(dated("claude-sonnet-4-5-20250929")).toBe(true);
    expect(dated("claude-sonnet-4-5-2025")).toBe(true);
    expect(dated("claude-sonnet-4-5-2024")).toBe(false);
    expect(dated("xclaude-sonnet-4-5-2025")).toBe(false);
    const middle = aliasPattern("a*b*c");
    expect(["abc", "a-b-c", "abbc", "a.b.c"].map(middle)).toEqual([true, true, true, true]);
    expect(["ab", "ac", "acb", "abcx", "bc"].map(middle)).toEqual([false, false, false, false, false]);
    // Regex characters are literal; the tail cannot reuse characters a middle part took.
    expect(aliasPattern("gpt-4.1*")("gpt-4x1-mini")).toBe(false);
    expect(aliasPattern("a*aa")("aaa")).toBe(true);
    expect(aliasPattern("a*aa")("aa")).toBe(false);
    expect(aliasPattern("*ab*ab")("ab")).toBe(false);
    expect(aliasPattern("exact")("exact")).toBe(true);
    expect(aliasPattern("*")("anything at all")).toBe(true);
  });

  it("stays linear on a long hostile name", () => {
    const matches = aliasPattern("a*a*a*a*a*a*a*b");
    const started = performance.now();
    expect(matches("a".repeat(200_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe("RoutingTable.model", () => {
  it("resolves a name, an exact alias, or the first matching pattern in file order, to the canonical record", async () => {
    const routing = await table([
      // Snapshot order (by name) differs from file order (position): patterns follow the file.
      modelRecord("b-model", 0, ["claude-*", "b-alias"]),
      modelRecord("a-model", 1, ["claude-sonnet-*", "sonnet"]),
      modelRecord("c-model", 2, ["claude-sonnet-4-5"]),
    ]);
    expect(routing.model("a-model")?.name).toBe("a-model");
    expect(routing.model("sonnet")?.name).toBe("a-model");
    expect(routing.model("b-alias")?.name).toBe("b-model");
    // The first pattern in file order wins, even where a later one is more specific.
    expect(routing.model("claude-sonnet-4-5-20250929")?.name).toBe("b-model");
    // An exact alias beats a pattern that also matches.
    expect(routing.model("claude-sonnet-4-5")?.name).toBe("c-model");
    expect(routing.model("gpt-4o")).toBeUndefined();
    // Object prototype names are not models.
    expect(routing.model("constructor")).toBeUndefined();
    expect(routing.model("__proto__")).toBeUndefined();
  });

  it("a model's own name beats every alias and pattern", async () => {
    const routing = await table([modelRecord("first", 0, ["*"]), modelRecord("second", 1, [])]);
    expect(routing.model("second")?.name).toBe("second");
    expect(routing.model("whatever")?.name).toBe("first");
  });
});
