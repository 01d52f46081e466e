import { randomBytes } from "node:crypto";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The W3C `traceparent` sent upstream: the client's trace continues with a new parent id for this
 * hop (https://www.w3.org/TR/trace-context/#traceparent-header); without a valid one from the
 * client, a new sampled trace starts here.
 */
export function upstreamTraceparent(fromClient: string | string[] | undefined): string {
  const match = typeof fromClient === "string" ? TRACEPARENT.exec(fromClient.trim()) : null;
  const traceId = match && match[1] !== "0".repeat(32) ? match[1] : randomBytes(16).toString("hex");
  const flags = match ? match[3] : "01";
  return `00-${traceId}-${randomBytes(8).toString("hex")}-${flags}`;
}
