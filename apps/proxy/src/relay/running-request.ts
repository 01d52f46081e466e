import type { GatewayError, Usage } from "@gateway/contracts";
import type { InFlightRequest } from "./in-flight.ts";
import { estimateUsage } from "./usage-estimate.ts";

/** The attempt under way, as its request sees it. */
export interface RunningAttempt {
  /** Usage so far: the upstream's final usage once it came, else the estimate billed if it ended now. */
  progress(): Usage;
  /** Ends the attempt at once: the client's final error event (or its JSON error), the upstream call aborted. */
  terminate(error: GatewayError): void;
}

export interface RunningRequestFields {
  requestId: string;
  keyId: string;
  /** The key secret's hash the request came with: a rotation refuses one secret of a key, not the other. */
  keyHash: string | null;
  vendorId: string;
  serverOption: string;
  model: string;
  endpoint: string;
  stream: boolean;
  startedAt: number;
  requestBytes: number;
}

/**
 * One admitted request in the in-flight registry for its whole life (relay-request.ts adds it and
 * removes it once its billing event is recorded): its progress is the attempt's under way, and a
 * termination (a revoked key) ends that attempt, or the next one before it starts.
 */
export class RunningRequest implements InFlightRequest {
  readonly requestId: string;
  readonly keyId: string;
  readonly keyHash: string | null;
  readonly vendorId: string;
  readonly serverOption: string;
  readonly model: string;
  readonly endpoint: string;
  readonly stream: boolean;
  readonly startedAt: number;
  upstream: string | null = null;
  upstreamModel: string | null = null;
  /** Why the request was ended from outside; no attempt starts after it is set. */
  terminated: GatewayError | null = null;
  attempt: RunningAttempt | null = null;
  private readonly requestBytes: number;

  constructor(fields: RunningRequestFields) {
    this.requestId = fields.requestId;
    this.keyId = fields.keyId;
    this.keyHash = fields.keyHash;
    this.vendorId = fields.vendorId;
    this.serverOption = fields.serverOption;
    this.model = fields.model;
    this.endpoint = fields.endpoint;
    this.stream = fields.stream;
    this.startedAt = fields.startedAt;
    this.requestBytes = fields.requestBytes;
  }

  progress(): Usage {
    // Between attempts nothing was relayed: the input estimate alone.
    return this.attempt?.progress() ?? estimateUsage(this.requestBytes, null, 0);
  }

  terminate(error: GatewayError): void {
    if (this.terminated !== null) return;
    this.terminated = error;
    this.attempt?.terminate(error);
  }
}
