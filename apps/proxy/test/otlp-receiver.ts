import { createServer, type Server } from "node:http";

/** An OTLP/HTTP JSON span as the collector receives it. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2 SERVER, 3 CLIENT. */
  kind: number;
  status?: { code?: number; message?: string };
  attributes: { key: string; value: Record<string, unknown> }[];
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

function decode(value: Record<string, unknown>): AttributeValue {
  if ("stringValue" in value) return value.stringValue as string;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("boolValue" in value) return value.boolValue as boolean;
  if ("arrayValue" in value) return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(decode);
  return undefined;
}

/** A span's attributes as a plain object (OTLP's typed values decoded). */
export function attributesOf(span: ExportedSpan): Record<string, AttributeValue> {
  return Object.fromEntries(span.attributes.map((attribute) => [attribute.key, decode(attribute.value)]));
}

/** A local OTLP/HTTP (JSON) trace receiver: every exported span lands in `spans`. */
export async function startOtlpReceiver(): Promise<{ url: string; spans: ExportedSpan[]; close(): void }> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => server.close() };
}
