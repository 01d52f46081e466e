// The scale proof's workload: mixed traffic through every proxy while vendors mint keys through
// both control planes and revoke some of them, timing how long each revocation takes to hold on
// every proxy.
import type { ScaleStack } from "./stack.ts";
import { authStatus, callProxy, CALLS, inParallel, vendorApi, type CallResult } from "./traffic.ts";

export interface WorkloadOptions {
  requests: number;
  trafficKeys: number;
  revokedKeys: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export interface WorkloadOutcome {
  results: CallResult[];
  /** Per revoked key and proxy: ms from the revocation's 200 to that proxy's first 401. */
  revocationMs: number[];
  /** Status of a billable request with each revoked key on each proxy, afterwards. */
  afterRevocation: number[];
}

const GIVE_UP_MS = 5_000;

export async function runWorkload(stack: ScaleStack, options: WorkloadOptions): Promise<WorkloadOutcome> {
  const vendors = stack.controlPlanes.map((controlPlane) => vendorApi(controlPlane.url, stack.vendorToken));
  const mint = (count: number, label: string) => Promise.all(Array.from({ length: count }, (_, index) => vendors[index % vendors.length]!.mintKey(`${label}-${index}`)));
  const [trafficKeys, doomedKeys] = await Promise.all([mint(options.trafficKeys, "traffic"), mint(options.revokedKeys, "revoked")]);
  // Every proxy caches each doomed key first: the revocation must evict it from every cache.
  for (const { key } of doomedKeys) {
    for (const proxy of stack.proxies) {
      const status = await authStatus(proxy.url, key);
      if (status !== 200) throw new Error(`a fresh key answered ${status} on ${proxy.name}`);
    }
  }

  const traffic = inParallel(options.concurrency, Array.from({ length: options.requests }, (_, index) => () =>
    callProxy(stack.proxies[index % stack.proxies.length]!.url, trafficKeys[index % trafficKeys.length]!.key, CALLS[index % CALLS.length]!, index),
  ));
  const revocations = Promise.all(doomedKeys.map(async ({ id, key }, index) => {
    await vendors[index % vendors.length]!.revokeKey(id);
    const revokedAt = Date.now();
    return Promise.all(stack.proxies.map(async (proxy) => {
      while ((await authStatus(proxy.url, key)) !== 401) {
        if (Date.now() - revokedAt > GIVE_UP_MS) return Number.POSITIVE_INFINITY;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return Date.now() - revokedAt;
    }));
  }));
  const [results, revocationMs] = await Promise.all([traffic, revocations.then((perKey) => perKey.flat())]);
  const afterRevocation = await Promise.all(
    doomedKeys.flatMap(({ key }) => stack.proxies.map((proxy) => callProxy(proxy.url, key, "chat", 0).then((result) => result.status))),
  );
  return { results, revocationMs, afterRevocation };
}
