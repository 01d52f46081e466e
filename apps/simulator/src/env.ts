/** Environment configuration of the standalone simulator, validated with zod. */
import { z } from 'zod';

const emptyToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);
const int = (min: number, max: number, fallback: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().min(min).max(max).default(fallback));

export const envSchema = z.object({
  SIMULATOR_PORT: int(0, 65535, 4010),
  SIMULATOR_HOST: z.preprocess(emptyToUndefined, z.string().min(1).default('127.0.0.1')),
  SIMULATOR_API_KEY: z.preprocess(emptyToUndefined, z.string().min(1).optional()),
  SIMULATOR_LATENCY_MS: int(0, 3_600_000, 0),
  SIMULATOR_CHUNK_DELAY_MS: int(0, 3_600_000, 0),
  SIMULATOR_CHUNKS: int(0, 100_000, 12),
  /** `1`/`true`: strict mode (see strict.ts); `0`/`false`/unset: off. */
  SIMULATOR_STRICT: z.preprocess(emptyToUndefined, z.enum(['1', '0', 'true', 'false']).default('0').transform((v) => v === '1' || v === 'true')),
});

export type SimulatorEnv = z.infer<typeof envSchema>;

export type EnvResult = { ok: true; env: SimulatorEnv } | { ok: false; message: string };

export function parseEnv(source: Record<string, string | undefined>): EnvResult {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.shape)) picked[key] = source[key];
  const result = envSchema.safeParse(picked);
  if (result.success) return { ok: true, env: result.data };
  const message = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  return { ok: false, message: `invalid environment: ${message}` };
}
