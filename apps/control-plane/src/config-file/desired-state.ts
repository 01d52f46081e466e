import { defaultCacheWritePrices, parsePriceToPico, parseUsdToNano, tiersToJson, type PriceTier, type UnitPrices } from "@gateway/contracts";
import type { GatewayFile, PriceTierFields } from "@gateway/config";

type PriceText = Partial<Omit<PriceTierFields, "above_input_tokens">>;

/** Gateway file price fields -> pico-USD per unit; null where the field is not given. */
function prices(set: PriceText): { [Field in keyof UnitPrices]: bigint | null } {
  const perToken = (text: string | undefined) => (text === undefined ? null : parsePriceToPico(text, "per_million_tokens"));
  const perUnit = (text: string | undefined) => (text === undefined ? null : parsePriceToPico(text, "per_unit"));
  return {
    inputPrice: perToken(set.input),
    outputPrice: perToken(set.output),
    cachedInputPrice: perToken(set.cached_input),
    cacheWritePrice: perToken(set.cache_write),
    cacheWrite1hPrice: perToken(set.cache_write_1h),
    imagePrice: perUnit(set.image),
    requestPrice: perUnit(set.request),
    webSearchPrice: perUnit(set.web_search),
  };
}

/** Tiers as stored: only the fields a tier gives (the others are the base price when charged). */
function tiers(list: readonly PriceTierFields[]): PriceTier[] {
  return list.map(({ above_input_tokens, ...set }) => {
    const given = Object.entries(prices(set)).filter(([, price]) => price !== null);
    return { aboveInputTokens: above_input_tokens, prices: Object.fromEntries(given) as Partial<UnitPrices> };
  });
}

/** The gateway file turned into the exact column values it asks for. */
export function desiredState(file: GatewayFile) {
  const upstreams = new Map(file.upstreams.map((u) => [u.name, u]));
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
      responseTimeoutMs: u.timeouts.response_ms,
      supportsResponses: u.capabilities.responses,
      dropBetas: u.drop_betas,
      // The provider's own fields (contract section 17); {} for a plain upstream.
      dialect: u.dialect ?? {},
    })),
    models: file.models.map((m, modelPosition) => {
      const p = prices(m.prices);
      const inputPrice = p.inputPrice ?? 0n;
      const cacheWriteDefaults = defaultCacheWritePrices(inputPrice);
      return {
        row: {
          name: m.name,
          displayName: m.display_name ?? m.name,
          ownedBy: m.owned_by,
          aliases: m.aliases,
          dropParams: m.drop_params,
          position: modelPosition,
          inputPrice,
          outputPrice: p.outputPrice ?? 0n,
          cachedInputPrice: p.cachedInputPrice ?? inputPrice,
          cacheWritePrice: p.cacheWritePrice ?? cacheWriteDefaults.cacheWritePrice,
          cacheWrite1hPrice: p.cacheWrite1hPrice ?? cacheWriteDefaults.cacheWrite1hPrice,
          imagePrice: p.imagePrice ?? 0n,
          requestPrice: p.requestPrice ?? 0n,
          webSearchPrice: p.webSearchPrice ?? 0n,
          priceTiers: tiersToJson(tiers(m.prices.tiers)),
          // Resolved by the gateway file: its own values, else its family's defaults.
          maxOutputTokens: m.capabilities.max_output_tokens,
          contextWindow: m.capabilities.context_window,
          reasoning: m.capabilities.reasoning,
          sampling: m.capabilities.sampling,
          midConversationSystem: m.capabilities.mid_conversation_system,
          thinkingStyle: m.capabilities.thinking_style,
          canDisableThinking: m.capabilities.can_disable_thinking,
          vision: m.capabilities.vision,
          tools: m.capabilities.tools,
        },
        // A target's weight and priority default to its upstream's (the file guarantees the upstream exists).
        targets: m.targets.map((t, position) => {
          const upstream = upstreams.get(t.upstream)!;
          return { upstream: t.upstream, upstreamModel: t.model, position, weight: t.weight ?? upstream.weight, priority: t.priority ?? upstream.priority };
        }),
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
        strictParams: o.strict_params,
      },
      models: o.models.map((model) => {
        const { tiers: ownTiers, ...set } = o.prices[model] ?? {};
        return { model, ...prices(set), priceTiers: ownTiers === undefined ? null : tiersToJson(tiers(ownTiers)) };
      }),
    })),
    vendors: file.vendors.map((v) => ({ name: v.name, serverOptions: [...v.server_options].sort() })),
  };
}

export type DesiredState = ReturnType<typeof desiredState>;

/** True when every field of `want` equals the same field of `have` (BigInt-aware; JSON by value, whatever its key order). */
export function sameFields(have: Record<string, unknown>, want: Record<string, unknown>): boolean {
  return Object.keys(want).every((field) => have[field] === want[field] || sameJson(have[field], want[field]));
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** JSON with object keys sorted (Postgres JSONB does not keep the order they were written in). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
