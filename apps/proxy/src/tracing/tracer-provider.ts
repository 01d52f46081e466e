import type { Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

/**
 * OTLP/HTTP export of the proxy's spans when an endpoint is configured (batched, off the request
 * path). Returns null without one.
 */
export function createTracer(endpoint: string | undefined, serviceName: string): { tracer: Tracer; shutdown(): Promise<void> } | null {
  if (!endpoint) return null;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }), { scheduledDelayMillis: 1000 })],
  });
  return { tracer: provider.getTracer("llm-gateway-proxy"), shutdown: () => provider.shutdown() };
}
