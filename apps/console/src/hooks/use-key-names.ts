import { useEffect, useState } from "react";
import type { ApiClient } from "../api/api-client.ts";
import type { ApiKey } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { useSession } from "../session/session-context.tsx";

export interface KeyName {
  name: string;
  prefix: string;
}

interface Cached {
  at: number;
  names: Promise<ReadonlyMap<string, KeyName>>;
}

/** Kept for a minute per signed-in client: every page that shows key ids shares one read. */
const TTL_MS = 60_000;
const MAX_PAGES = 20;
const cache = new WeakMap<ApiClient, Cached>();

async function loadNames(api: ApiClient): Promise<ReadonlyMap<string, KeyName>> {
  const names = new Map<string, KeyName>();
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list: { data: ApiKey[]; has_more: boolean; next_cursor: string | null } = await vendorApi.listKeys(api, { limit: 100, cursor });
    for (const key of list.data) names.set(key.id, { name: key.name, prefix: key.prefix });
    if (!list.has_more || !list.next_cursor) break;
    cursor = list.next_cursor;
  }
  return names;
}

/** Forget the names (a key was created or renamed): the next reader loads them again. */
export function forgetKeyNames(api: ApiClient): void {
  cache.delete(api);
}

/**
 * The vendor's key names by id (GET /api/keys, every page, cached), for tables that show key ids.
 * Empty without keys:read or while loading; a failed read leaves the ids as they are.
 */
export function useKeyNames(): ReadonlyMap<string, KeyName> {
  const { api, can } = useSession();
  const readable = can("keys:read");
  const [names, setNames] = useState<ReadonlyMap<string, KeyName>>(() => new Map());
  useEffect(() => {
    if (!readable) return;
    let current = true;
    let cached = cache.get(api);
    if (!cached || Date.now() - cached.at > TTL_MS) {
      cached = { at: Date.now(), names: loadNames(api) };
      cache.set(api, cached);
      cached.names.catch(() => cache.delete(api));
    }
    cached.names.then(
      (loaded) => current && setNames(loaded),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, readable]);
  return names;
}
