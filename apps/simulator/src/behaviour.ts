/** Per-request behaviour: directives in the last user text, else the first matching queued fault, else defaults. */
import { parseDirectives } from './directives.ts';
import type { FaultQueue, FaultTarget } from './faults.ts';
import { DEFAULT_BEHAVIOUR, type Behaviour } from './types.ts';

export interface ResolvedBehaviour {
  behaviour: Behaviour;
  source: 'directive' | 'fault' | 'default';
}

function merge(defaults: Behaviour, override: Partial<Behaviour>): Behaviour {
  const out: Behaviour = { ...defaults };
  for (const [key, value] of Object.entries(override) as Array<[keyof Behaviour, unknown]>) {
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * First match wins: if the text carries any `#sim:` directive, those (over the defaults) are used and the
 * fault queue is left alone; otherwise one use of the first matching fault is consumed.
 */
export function resolveBehaviour(text: string, target: FaultTarget, faults: FaultQueue, defaults: Behaviour): ResolvedBehaviour {
  const directives = parseDirectives(text);
  if (directives) return { behaviour: merge(defaults, directives), source: 'directive' };
  const fault = faults.take(target);
  if (fault) return { behaviour: merge(defaults, fault), source: 'fault' };
  return { behaviour: defaults, source: 'default' };
}

export function withDefaults(partial: Partial<Behaviour> | undefined): Behaviour {
  return merge(DEFAULT_BEHAVIOUR, partial ?? {});
}
