import type { UpstreamRecord } from "@gateway/redis-store";
import { azureTransport } from "./azure.ts";
import { compatTransport } from "./compat.ts";
import { bedrockTransport } from "./bedrock.ts";
import { vertexTransport } from "./vertex.ts";
import type { DialectTransport } from "./transport.ts";

export type { DialectCall, DialectTransport } from "./transport.ts";
export { compatDrops } from "./compat.ts";

/** Made once per upstream record: the routing snapshot is replaced whole on a change. */
const transports = new WeakMap<UpstreamRecord, DialectTransport | null>();

/**
 * The transport of an upstream's provider kind or compat profile (contract section 17); null for a
 * plain OpenAI or Anthropic upstream.
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
        transport = compatTransport(dialect.profile);
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
