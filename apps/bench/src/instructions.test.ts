// The instruction counter's parsing of callgrind_control and its table: every thread is summed
// (V8's compiler and collector threads are part of a request's cost), and a missing count fails.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { describe, expect, it } from "vitest";
import { instructionTable, parseInstructionCount, sendRequests } from "./instructions.ts";

const ANSWER = `PID 21715: node apps/proxy/dist/main.mjs

  Totals:        Ir 
   Th 1  68,435,591 
   Th 3      10,916 
   Th 4      52,372 
   Th 5      57,369 
`;

describe("parseInstructionCount", () => {
  it("sums the instructions of every thread", () => {
    expect(parseInstructionCount(ANSWER)).toBe(68_435_591 + 10_916 + 52_372 + 57_369);
  });

  it("refuses an answer without counts (a process not under callgrind, or counting off)", () => {
    expect(() => parseInstructionCount("PID 1: node\n  OK.\n")).toThrow(/no instruction counts/);
    expect(() => parseInstructionCount("PID 1: node\n\n  Totals:        Ir \n")).toThrow(/no thread counts/);
  });
});

describe("instructionTable", () => {
  it("puts each row's floor and proxy side by side with their ratio", () => {
    const table = instructionTable([
      { row: "chat-c64", side: "floor", requests: 2000, instructions: 1_000_000_000, perRequest: 500_000 },
      { row: "chat-c64", side: "proxy", requests: 2000, instructions: 900_000_000, perRequest: 450_000 },
      { row: "messages-c64", side: "proxy", requests: 2000, instructions: 800_000_000, perRequest: 400_000 },
    ]);
    expect(table.split("\n")).toEqual([
      "| row | floor instructions/request | proxy instructions/request | proxy/floor |",
      "|---|---:|---:|---:|",
      "| chat-c64 | 500,000 | 450,000 | x0.90 |",
      "| messages-c64 | – | 400,000 | – |",
    ]);
  });
});

describe("sendRequests", () => {
  it("sends exactly the count asked for, never more at once than the concurrency, and checks a stream's end", async () => {
    let seen = 0;
    let inFlight = 0;
    let most = 0;
    const server = createServer((request, response) => {
      seen += 1;
      inFlight += 1;
      most = Math.max(most, inFlight);
      request.resume();
      setTimeout(() => {
        inFlight -= 1;
        response.end(request.url === "/cut" ? "data: partial\n\n" : "data: x\n\ndata: [DONE]\n\n");
      }, 2);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = new Agent({ connections: 16 });
    try {
      await sendRequests(agent, { url: `${base}/ok`, headers: {}, body: "{}" }, "data: [DONE]", 25, 4);
      expect(seen).toBe(25);
      expect(most).toBeLessThanOrEqual(4);
      await expect(sendRequests(agent, { url: `${base}/cut`, headers: {}, body: "{}" }, "data: [DONE]", 1, 1)).rejects.toThrow(/without "data: \[DONE\]"/);
    } finally {
      await agent.close();
      server.close();
    }
  });
});
