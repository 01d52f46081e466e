import type { Shape } from "@gateway/contracts";

/** How to talk to an upstream of one shape: its auth and how its error bodies read. */
export interface UpstreamShapeAdapter {
  shape: Shape;
  headers(secret: string | null, clientHeaders: Record<string, string | string[] | undefined>): Record<string, string>;
  /** The message inside the provider's own error body, if it has one. */
  errorMessage(body: unknown): string | null;
}
