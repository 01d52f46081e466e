import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startStack, type Stack } from "./stack.ts";

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

let collector: Server;
let stack: Stack;
const exported: ExportedSpan[] = [];

beforeAll(async () => {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) exported.push(...scope.spans);
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const port = (collector.address() as { port: number }).port;
  stack = await startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
});
afterAll(async () => {
  await stack?.close();
  collector?.close();
});

describe("OpenTelemetry export", () => {
  it("exports one span per request continuing the client's trace, and the upstream sees that span as its parent", async () => {
    const { key } = await stack.mintKey();
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "trace me" }] }, { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    const upstreamTraceparent = stack.simulator.stats.requests.at(-1)!.headers.traceparent!;
    await expect.poll(() => exported.filter((span) => span.traceId === traceId).length, { timeout: 5_000, interval: 100 }).toBe(1);
    const span = exported.find((candidate) => candidate.traceId === traceId)!;
    expect(span.parentSpanId).toBe("b7ad6b7169203331");
    expect(span.name).toBe("chat.completions gpt-test");
    expect(upstreamTraceparent).toBe(`00-${traceId}-${span.spanId}-01`);
    const attributes = Object.fromEntries(span.attributes.map((attribute) => [attribute.key, Object.values(attribute.value)[0]]));
    expect(attributes).toMatchObject({ "gen_ai.request.model": "gpt-test", "gateway.upstream": "sim-openai-a", "gateway.outcome": "ok" });
    expect(Number(attributes["gen_ai.usage.output_tokens"])).toBe(stack.simulator.stats.requests.at(-1)!.usage!.output_tokens);
  });
});
