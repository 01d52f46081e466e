import { describe, expect, it } from "vitest";
import { parseRedisCpu, sumCounter, systemFigures } from "./system-cost.ts";

describe("sumCounter", () => {
  it("adds every series of one counter and nothing else", () => {
    const text = [
      "# HELP gateway_model_requests_total Model requests.",
      "# TYPE gateway_model_requests_total counter",
      'gateway_model_requests_total{endpoint="chat.completions",model="gpt-4o-mini",upstream="sim-openai",outcome="ok"} 1200',
      'gateway_model_requests_total{endpoint="messages",model="claude-sonnet-4-5",upstream="sim-anthropic",outcome="client_aborted"} 3',
      'gateway_model_requests_total_created{endpoint="messages"} 1795485123',
      'gateway_http_requests_total{route="/v1/messages",method="POST",status="200"} 999',
    ].join("\n");
    expect(sumCounter(text, "gateway_model_requests_total")).toBe(1203);
    expect(sumCounter("", "gateway_model_requests_total")).toBe(0);
  });
});

describe("parseRedisCpu", () => {
  it("is used_cpu_sys + used_cpu_user of INFO cpu, in seconds", () => {
    expect(parseRedisCpu("# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:0.000000\r\n")).toBe(3.75);
    expect(() => parseRedisCpu("# CPU\r\n")).toThrow(/used_cpu/);
  });
});

describe("systemFigures", () => {
  it("spreads each process's CPU over the run's requests and adds the proxy's for the whole system", () => {
    const before = { ledger: 100, proxied: 100, workerSeconds: 10, redisSeconds: 5, postgresSeconds: 20 };
    const after = { ledger: 10_100, proxied: 10_100, workerSeconds: 10.5, redisSeconds: 5.2, postgresSeconds: 20.9 };
    const figures = systemFigures(before, after, 10_000, 300);
    expect(figures.workerUsPerRequest).toBeCloseTo(50, 6);
    expect(figures.redisUsPerRequest).toBeCloseTo(20, 6);
    expect(figures.postgresUsPerRequest).toBeCloseTo(90, 6);
    expect(figures.wholeUsPerRequest).toBeCloseTo(460, 6);
    expect(figures).toMatchObject({ billed: 10_000, proxied: 10_000 });
  });
});
