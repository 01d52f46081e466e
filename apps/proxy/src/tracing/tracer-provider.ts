import type { Tracer } from "@opentelemetry/api";

/**
 * OTLP/HTTP export of the proxy's spans when an endpoint is configured (batched, off the request
 * path). Returns null without one; the SDK is only loaded when it is used, so a proxy without
 * export carries none of it in memory.
 */
export async function createTracer(endpoint: string | undefined, serviceName: string): Promise<{ tracer: Tracer; shutdown(): Promise<void> } | null> {
  if (!endpoint) return null;
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor }, { NodeTracerProvider }] = await Promise.all([
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/sdk-trace-node"),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }), { scheduledDelayMillis: 1000 })],
  });
  return { tracer: provider.getTracer("llm-gateway-proxy"), shutdown: () => provider.shutdown() };
}
