/**
 * What each upstream model takes, as the real providers enforce it: the one table strict mode reads
 * (see strict.ts). Keyed by the ids the gateway files send upstream (`gpt-4o-mini-2024-07-18`,
 * `claude-sonnet-4-5-20250929`, ...): a family prefix matches its dated and aliased ids. A model
 * this table does not know gets null, and strict mode accepts whatever it is sent (as before).
 * Gemini ids (`gemini-2.5-flash`, `gemini-3.1-pro-preview`) are matched by version and tier.
 */

export type ModelFamily = 'openai' | 'anthropic' | 'gemini';

export interface ModelCapabilities {
  family: ModelFamily;
  /** The most output tokens a request may ask for (`max_tokens`, `max_completion_tokens`, `max_output_tokens`). */
  maxOutputTokens: number;
  /** Takes reasoning effort (OpenAI `reasoning_effort` / `reasoning.effort`) or extended thinking (Anthropic `thinking`). */
  reasoning: boolean;
  /**
   * Takes `temperature` / `top_p` / `top_k`. Only Anthropic models without it are refused, and only under
   * `anthropic-version: 2026-10-21` (the version that stopped ignoring sampling on such models).
   */
  sampling: boolean;
  /** Refuses `temperature` and `top_p` in one request (Claude 4.5 and later 4.x). */
  samplingExclusive: boolean;
  /** Takes `role: "system"` inside `messages` (Anthropic: Claude 4.8+ and 5.x). OpenAI chat always does. */
  midConversationSystem: boolean;
  /**
   * Gemini: thinking cannot be turned off (`thinkingBudget: 0` is refused: Gemini 2.5 Pro). Absent
   * for the other families.
   */
  thinkingRequired?: boolean;
  /**
   * Gemini 3 and later: function calls carry an `id` and a `thoughtSignature`, and the first call of
   * each model turn of the current step must come back with its signature.
   */
  thoughtSignatures?: boolean;
  /**
   * Gemini 3 and later: the `thinkingLevel` values the model takes (Pro: no MINIMAL; 3.0 Pro: LOW
   * and HIGH only). Absent: the model takes no `thinkingLevel` (Gemini 2.5: "Thinking level is not
   * supported for this model.").
   */
  thinkingLevels?: readonly string[];
}

/** The `anthropic-version` under which models without sampling refuse temperature / top_p / top_k. */
export const NO_SAMPLING_ANTHROPIC_VERSION = '2026-10-21';

interface OpenAIEntry {
  /** The id itself, or the id followed by `-` (dated snapshots, variants). */
  prefix: string;
  maxOutputTokens: number;
  reasoning: boolean;
}

/** Longest prefix first (`gpt-4o-mini` before `gpt-4o`). */
const OPENAI: readonly OpenAIEntry[] = [
  { prefix: 'gpt-4o-mini', maxOutputTokens: 16_384, reasoning: false },
  { prefix: 'gpt-4o', maxOutputTokens: 16_384, reasoning: false },
  { prefix: 'chatgpt-4o-latest', maxOutputTokens: 16_384, reasoning: false },
  { prefix: 'gpt-4.1-mini', maxOutputTokens: 32_768, reasoning: false },
  { prefix: 'gpt-4.1-nano', maxOutputTokens: 32_768, reasoning: false },
  { prefix: 'gpt-4.1', maxOutputTokens: 32_768, reasoning: false },
  { prefix: 'gpt-4-turbo', maxOutputTokens: 4_096, reasoning: false },
  { prefix: 'gpt-3.5-turbo', maxOutputTokens: 4_096, reasoning: false },
  { prefix: 'gpt-5-chat-latest', maxOutputTokens: 16_384, reasoning: false },
  { prefix: 'gpt-5-mini', maxOutputTokens: 128_000, reasoning: true },
  { prefix: 'gpt-5-nano', maxOutputTokens: 128_000, reasoning: true },
  { prefix: 'gpt-5', maxOutputTokens: 128_000, reasoning: true },
  { prefix: 'o4-mini', maxOutputTokens: 100_000, reasoning: true },
  { prefix: 'o3-mini', maxOutputTokens: 100_000, reasoning: true },
  { prefix: 'o3', maxOutputTokens: 100_000, reasoning: true },
  { prefix: 'o1', maxOutputTokens: 100_000, reasoning: true },
];

function openaiCapabilities(model: string): ModelCapabilities | null {
  for (const entry of OPENAI) {
    if (model === entry.prefix || model.startsWith(`${entry.prefix}-`) || (entry.prefix === 'gpt-5' && /^gpt-5\.\d/.test(model))) {
      return {
        family: 'openai',
        maxOutputTokens: entry.maxOutputTokens,
        reasoning: entry.reasoning,
        sampling: true,
        samplingExclusive: false,
        midConversationSystem: true,
      };
    }
  }
  return null;
}

/** `claude-{tier}-{major}[-{minor}][-date]` (current names: opus, sonnet, haiku, and newer tiers) and `claude-{major}-{minor}-{tier}[-date]` (Claude 3.x). */
const CLAUDE_CURRENT = /^claude-([a-z]+)-(\d{1,2})(?:-(\d{1,2}))?(?:[-@].*)?$/;
const CLAUDE_3 = /^claude-3-(?:(\d)-)?(opus|sonnet|haiku)(?:[-@].*)?$/;

function claude(maxOutputTokens: number, reasoning: boolean, major: number, minor: number): ModelCapabilities {
  const v5 = major >= 5;
  return {
    family: 'anthropic',
    maxOutputTokens,
    reasoning,
    sampling: !v5,
    samplingExclusive: major === 4 && minor >= 5,
    midConversationSystem: v5 || (major === 4 && minor >= 8),
  };
}

function claudeMaxOutput(tier: string, major: number, minor: number): number {
  if (major >= 5) return 128_000;
  if (tier === 'opus') return minor <= 1 ? 32_000 : minor === 5 ? 64_000 : 128_000;
  return 64_000;
}

function anthropicCapabilities(model: string): ModelCapabilities | null {
  const current = CLAUDE_CURRENT.exec(model);
  if (current) {
    const tier = current[1] as string;
    const major = Number(current[2]);
    const minor = current[3] === undefined ? 0 : Number(current[3]);
    if (major < 4) return null;
    return claude(claudeMaxOutput(tier, major, minor), true, major, minor);
  }
  const old = CLAUDE_3.exec(model);
  if (old) {
    const minor = old[1] === undefined ? 0 : Number(old[1]);
    const tier = old[2] as string;
    if (minor === 7 && tier === 'sonnet') return claude(64_000, true, 3, 7);
    if (minor === 5) return claude(8_192, false, 3, 5);
    if (minor === 0) return claude(4_096, false, 3, 0);
  }
  return null;
}

/**
 * `gemini-{major}[.{minor}]-{tier}[-variant]` (`gemini-2.5-flash`, `gemini-2.5-flash-lite`,
 * `gemini-3.1-pro-preview`, `gemini-3.5-flash-lite`, `gemini-2.0-flash-001`). Output limits as the
 * model resources list them: 2.5 and 3.x 65,536 (thinking); 2.0 and 1.5 8,192 (no thinking).
 * Gemini 2.5 Pro cannot turn thinking off. Embedding models generate nothing: null.
 */
const GEMINI = /^gemini-(\d+)(?:\.(\d+))?-(pro|flash|ultra|nano)(?:-([a-z0-9.-]+))?$/;

function geminiCapabilities(model: string): ModelCapabilities | null {
  const match = GEMINI.exec(model.startsWith('models/') ? model.slice('models/'.length) : model);
  if (!match) return null;
  const major = Number(match[1]);
  const minor = match[2] === undefined ? 0 : Number(match[2]);
  const tier = match[3] as string;
  const thinking = major >= 3 || (major === 2 && minor >= 5);
  if (major < 1 || (!thinking && major < 2 && minor < 5)) return null;
  return {
    family: 'gemini',
    maxOutputTokens: thinking ? 65_536 : 8_192,
    reasoning: thinking,
    sampling: true,
    samplingExclusive: false,
    midConversationSystem: false,
    thinkingRequired: major === 2 && minor === 5 && tier === 'pro',
    thoughtSignatures: major >= 3,
    ...(major >= 3 ? { thinkingLevels: geminiLevels(major, minor, tier) } : {}),
  };
}

/** Gemini 3's levels: Flash all four; Pro no MINIMAL (it cannot turn thinking off), and 3.0 Pro no MEDIUM. */
function geminiLevels(major: number, minor: number, tier: string): readonly string[] {
  if (tier !== 'pro') return ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'];
  return major === 3 && minor === 0 ? ['LOW', 'HIGH'] : ['LOW', 'MEDIUM', 'HIGH'];
}

/** The capabilities of `model` (an upstream model id), or null when the table does not know it. */
export function capabilitiesFor(model: string): ModelCapabilities | null {
  const id = model.trim().toLowerCase();
  if (id.startsWith('claude-')) return anthropicCapabilities(id);
  if (id.startsWith('gemini-') || id.startsWith('models/gemini-')) return geminiCapabilities(id);
  return openaiCapabilities(id);
}
