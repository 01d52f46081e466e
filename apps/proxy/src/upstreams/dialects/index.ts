import type { UpstreamRecord } from "@gateway/redis-store";
import { azureTransport } from "./azure.ts";
import { bedrockTransport } from "./bedrock.ts";
import { vertexTransport } from "./vertex.ts";
import type { DialectTransport } from "./transport.ts";

export type { DialectCall, DialectTransport } from "./transport.ts";

/** Made once per upstream record: the routing snapshot is replaced whole on a change. */
const transports = new WeakMap<UpstreamRecord, DialectTransport | null>();

/**
 * The transport of an upstream's provider kind (contract section 17); null for a plain OpenAI or
 * Anthropic upstream and for a compat profile, whose calls go as the shape's own (its drops are the
 * request's, `compat.ts`).
 */
export function dialectTransport(upstream: UpstreamRecord): DialectTransport | null {
  const dialect = upstream.dialect;
  if (dialect === undefined || dialect === null) return null;
  let transport = transports.get(upstream);
  if (transport === undefined) {
    switch (dialect.kind) {
      case "azure":
        transport = azureTransport(dialect);
        break;
      case "bedrock":
        transport = bedrockTransport(dialect, upstream.baseUrl);
        break;
      case "vertex":
        transport = vertexTransport(dialect);
        break;
      case "compat":
        transport = null;
        break;
      default: {
        const never: never = dialect;
        throw new Error(`unknown upstream dialect ${JSON.stringify(never)}`);
      }
    }
    transports.set(upstream, transport);
  }
  return transport;
}
