import { describe, expect, it } from "vitest";
import { allScenarios, crossesShapes, includesOpenStreams, includesStep, selectScenarios } from "./scenarios.ts";
import { DEFAULT_INSTRUCTION_ROWS } from "./instructions.ts";
import { portkeyTarget, requestBody, requestTarget } from "./request-target.ts";
import { cpuModelOf } from "./machine-info.ts";

describe("scenarios", () => {
  it("covers both APIs at 1, 16, 64 and 256, the 50-chunk streams at 1 and 16, the 20-chunk streams at 16 and 64", () => {
    const ids = allScenarios().map((scenario) => scenario.id);
    for (const api of ["chat", "messages"]) {
      for (const concurrency of [1, 16, 64, 256]) expect(ids).toContain(`${api}-c${concurrency}`);
      expect(ids).toContain(`stream50-${api}-c1`);
      expect(ids).toContain(`stream20-${api}-c16`);
      expect(ids).toContain(`stream20-${api}-c64`);
    }
  });

  it("has cross-shape rows at 64 (each API on a model served by the other shape), JSON and 20-chunk streams, selected apart from the others", () => {
    const cross = allScenarios().filter((scenario) => crossesShapes(scenario.id));
    expect(cross.map((scenario) => [scenario.id, scenario.kind, scenario.concurrency, scenario.shape.model])).toEqual([
      ["cross-chat-c64", "json", 64, "claude-sonnet-4-5-cross"],
      ["cross-messages-c64", "json", 64, "gpt-4o-mini-cross"],
      ["cross-stream20-chat-c64", "stream", 64, "claude-sonnet-4-5-cross"],
      ["cross-stream20-messages-c64", "stream", 64, "gpt-4o-mini-cross"],
    ]);
    expect(cross.filter((scenario) => scenario.kind === "stream").every((scenario) => scenario.shape.directives === "#sim:chunks=20")).toBe(true);
    const ids = (filter: string) => selectScenarios(allScenarios(), filter).map((scenario) => scenario.id);
    expect(ids("cross-messages-c64,cross-chat-c64")).toEqual(["cross-chat-c64", "cross-messages-c64"]);
    expect(ids("cross-stream20")).toEqual(["cross-stream20-chat-c64", "cross-stream20-messages-c64"]);
    expect(ids("cross")).toHaveLength(4);
    // The same-shape filters select what they did.
    expect(ids("chat-c64,messages-c64,stream20")).not.toContain("cross-chat-c64");
    expect(ids("chat-c64,messages-c64,stream20").some(crossesShapes)).toBe(false);
    expect(ids(DEFAULT_INSTRUCTION_ROWS)).toEqual(["chat-c64", "messages-c64", "stream20-chat-c64", "stream20-messages-c64"]);
  });

  it("selects rows by id or its leading dash-separated parts", () => {
    expect(selectScenarios(allScenarios(), "chat-c1,stream20").map((scenario) => scenario.id)).toEqual(["chat-c1", "stream20-chat-c16", "stream20-messages-c16", "stream20-chat-c64", "stream20-messages-c64"]);
    expect(selectScenarios(allScenarios(), "")).toHaveLength(allScenarios().length);
    expect(includesOpenStreams("")).toBe(true);
    expect(includesOpenStreams("chat-c1")).toBe(false);
    expect(includesOpenStreams("chat-c1,open")).toBe(true);
    expect(includesStep("", "scaling")).toBe(true);
    expect(includesStep("chat-c64", "scaling")).toBe(false);
    expect(includesStep("chat-c64,scaling", "scaling")).toBe(true);
    expect(selectScenarios(allScenarios(), "stream50-messages").map((scenario) => scenario.id)).toEqual(["stream50-messages-c1", "stream50-messages-c16"]);
  });
});

describe("requests", () => {
  const endpoints = { simulatorUrl: "http://sim", simulatorKey: "sim-key", proxyUrl: "http://proxy", proxyKey: "sk-test" };

  it("sends the same body both ways, each with its own key", () => {
    const shape = { api: "messages" as const, stream: true, directives: "#sim:chunks=50" };
    const direct = requestTarget(endpoints, shape, false);
    const proxied = requestTarget(endpoints, shape, true);
    expect(direct.body).toBe(proxied.body);
    expect(direct.url).toBe("http://sim/v1/messages");
    expect(proxied.url).toBe("http://proxy/v1/messages");
    expect(direct.headers["x-api-key"]).toBe("sim-key");
    expect(proxied.headers["x-api-key"]).toBe("sk-test");
    expect(JSON.parse(proxied.body)).toMatchObject({ model: "claude-sonnet-4-5", stream: true });
  });

  it("sends Portkey the direct side's request, with the headers that point it at the simulator", () => {
    const chat = portkeyTarget(endpoints, { api: "chat", stream: false }, "http://portkey");
    expect(chat.url).toBe("http://portkey/v1/chat/completions");
    expect(chat.body).toBe(requestTarget(endpoints, { api: "chat", stream: false }, false).body);
    expect(chat.headers).toMatchObject({ authorization: "Bearer sim-key", "x-portkey-provider": "openai", "x-portkey-custom-host": "http://sim/v1" });
    const messages = portkeyTarget(endpoints, { api: "messages", stream: true }, "http://portkey");
    expect(messages.url).toBe("http://portkey/v1/messages");
    expect(messages.headers).toMatchObject({ "x-api-key": "sim-key", "x-portkey-provider": "anthropic", "x-portkey-custom-host": "http://sim/v1" });
  });

  it("puts simulator directives in the user text", () => {
    const body = JSON.parse(requestBody({ api: "chat", stream: false, directives: "#sim:chunks=20" }));
    expect(body.messages[0].content).toContain("#sim:chunks=20");
    expect(body.stream).toBeUndefined();
  });
});

describe("cpuModelOf", () => {
  it("reads the first model name of /proc/cpuinfo", () => {
    expect(cpuModelOf("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: x\n")).toBe("AMD EPYC 7B13");
    expect(cpuModelOf("")).toBe("unknown");
  });
});
