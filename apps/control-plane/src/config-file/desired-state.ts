import { parsePriceToPico, parseUsdToNano } from "@gateway/contracts";
import type { GatewayFile } from "@gateway/config";

/** The gateway file turned into the exact column values it asks for. */
export function desiredState(file: GatewayFile) {
  const prices = (set: Partial<{ input: string; output: string; cached_input: string; image: string }>) => ({
    inputPrice: set.input === undefined ? null : parsePriceToPico(set.input, "per_million_tokens"),
    outputPrice: set.output === undefined ? null : parsePriceToPico(set.output, "per_million_tokens"),
    cachedInputPrice: set.cached_input === undefined ? null : parsePriceToPico(set.cached_input, "per_million_tokens"),
    imagePrice: set.image === undefined ? null : parsePriceToPico(set.image, "per_unit"),
  });
  return {
    upstreams: file.upstreams.map((u) => ({
      name: u.name,
      shape: u.shape,
      baseUrl: u.base_url,
      secretEnv: u.secret_env,
      priority: u.priority,
      weight: u.weight,
      connectTimeoutMs: u.timeouts.connect_ms,
      firstByteTimeoutMs: u.timeouts.first_byte_ms,
      supportsResponses: u.capabilities.responses,
    })),
    models: file.models.map((m) => {
      const p = prices(m.prices);
      return {
        row: {
          name: m.name,
          displayName: m.display_name ?? m.name,
          ownedBy: m.owned_by,
          inputPrice: p.inputPrice ?? 0n,
          outputPrice: p.outputPrice ?? 0n,
          cachedInputPrice: p.cachedInputPrice ?? p.inputPrice ?? 0n,
          imagePrice: p.imagePrice ?? 0n,
        },
        targets: m.targets.map((t, position) => ({ upstream: t.upstream, upstreamModel: t.model, position, weight: t.weight })),
      };
    }),
    serverOptions: file.server_options.map((o) => ({
      row: {
        name: o.name,
        description: o.description,
        // "1.25" -> 12500 basis points
        priceMultiplierBps: Number(parseUsdToNano(o.price_multiplier) / 100_000n),
        rpm: o.rate_limits.rpm,
        tpm: o.rate_limits.tpm,
      },
      models: o.models.map((model) => ({ model, ...prices(o.prices[model] ?? {}) })),
    })),
    vendors: file.vendors.map((v) => ({ name: v.name, serverOptions: [...v.server_options].sort() })),
  };
}

export type DesiredState = ReturnType<typeof desiredState>;

/** True when every field of `want` equals the same field of `have` (BigInt-aware). */
export function sameFields(have: Record<string, unknown>, want: Record<string, unknown>): boolean {
  return Object.keys(want).every((field) => have[field] === want[field]);
}
