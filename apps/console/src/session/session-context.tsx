import { createContext, useContext } from "react";
import type { ApiClient } from "../api/api-client.ts";
import type { Scope } from "../api/types.ts";

/**
 * What every page of a signed-in console needs: the API client bound to the token, what the
 * token may do, and sign-out. A scope counts as granted until the API answers 403 `missing_scope`
 * for it (the API has no call that lists a token's scopes); the refusal's message is kept to show.
 */
export interface Session {
  api: ApiClient;
  /** False once a call that needs `scope` was refused. */
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
