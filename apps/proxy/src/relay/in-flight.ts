import type { GatewayError, Usage } from "@gateway/contracts";

/**
 * One admitted request while it runs, as the rest of the process sees it: the in-flight journal
 * checkpoints its progress (what a killed process is billed for), and a key's revoke, disable or
 * rotation ends its open streams through `terminate`.
 */
export interface InFlightRequest {
  readonly requestId: string;
  readonly keyId: string;
  /** The hash of the key's secret the request came with (a rotation refuses one secret, not the key); null when not known. */
  readonly keyHash?: string | null;
  readonly vendorId: string;
  readonly serverOption: string;
  /** The canonical model name (billing's). */
  readonly model: string;
  readonly endpoint: string;
  readonly stream: boolean;
  readonly startedAt: number;
  /** The upstream and its model serving it now; null before the first attempt. */
  upstream: string | null;
  upstreamModel: string | null;
  /** What the request would be billed for if it ended now: usage so far, estimated where not reported. */
  progress(): Usage;
  /**
   * Ends the request at once: a stream gets its shape's final error event with this error's type,
   * code and message; the upstream call is aborted; the request is billed for what was relayed.
   */
  terminate(error: GatewayError): void;
}

/** Every admitted request of this process, by request id and by key. */
export class InFlightRegistry {
  private readonly byId = new Map<string, InFlightRequest>();
  private readonly byKey = new Map<string, Set<InFlightRequest>>();
  /**
   * Called after each `add`: the in-flight journal schedules the new request's first write, and
   * answers the promise of that write (undefined without a journal).
   */
  onAdd: (entry: InFlightRequest) => Promise<void> | undefined = () => undefined;

  /** Registers the request; the promise settles once the journal holds it (call no upstream before). */
  add(entry: InFlightRequest): Promise<void> | undefined {
    this.byId.set(entry.requestId, entry);
    let forKey = this.byKey.get(entry.keyId);
    if (forKey === undefined) {
      forKey = new Set();
      this.byKey.set(entry.keyId, forKey);
    }
    forKey.add(entry);
    return this.onAdd(entry);
  }

  remove(requestId: string): void {
    const entry = this.byId.get(requestId);
    if (entry === undefined) return;
    this.byId.delete(requestId);
    const forKey = this.byKey.get(entry.keyId);
    if (forKey === undefined) return;
    forKey.delete(entry);
    if (forKey.size === 0) this.byKey.delete(entry.keyId);
  }

  get(requestId: string): InFlightRequest | undefined {
    return this.byId.get(requestId);
  }

  /** The key's open requests (a copy: terminating one removes it). */
  forKey(keyId: string): InFlightRequest[] {
    const forKey = this.byKey.get(keyId);
    return forKey === undefined ? [] : [...forKey];
  }

  entries(): IterableIterator<InFlightRequest> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }
}
