import { createContext, useContext } from "react";
import type { ApiClient } from "../api/api-client.ts";
import type { Scope, VendorToken } from "../api/types.ts";

/**
 * What every page of a signed-in console needs: the API client bound to the token, who the token
 * is and what it may do, and sign-out. The scopes come from GET /api/token, read before the first
 * page renders, so what the token may not do is never shown. A scope can still be taken away
 * server-side mid-session: a 403 `missing_scope` then withdraws it too, and its message is kept.
 */
export interface Session {
  api: ApiClient;
  /** The token's vendor, display prefix and scopes, as GET /api/token answered. */
  identity: VendorToken;
  /** True when the token has `scope` and no call needing it has been refused since. */
  can(scope: Scope): boolean;
  /** The envelope message of the refusal, for the page that needed the scope. */
  refusal(scope: Scope): string | null;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in console");
  return session;
}
