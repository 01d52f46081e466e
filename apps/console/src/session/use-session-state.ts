import { useCallback, useMemo, useState } from "react";
import { createApiClient } from "../api/api-client.ts";
import type { Scope } from "../api/types.ts";
import type { Session } from "./session-context.tsx";
import { forgetToken, readToken, saveToken } from "./token-storage.ts";

export interface SessionState {
  session: Session | null;
  /** Why the last session ended, when the API ended it (a revoked token), for the sign-in page. */
  endedBecause: string | null;
  signIn(token: string): void;
}

/** The token, the scopes refused so far, and the session object built from them. */
export function useSessionState(): SessionState {
  const [token, setToken] = useState<string | null>(() => readToken());
  const [refusals, setRefusals] = useState<ReadonlyMap<Scope, string>>(() => new Map());
  const [endedBecause, setEndedBecause] = useState<string | null>(null);

  const end = useCallback((reason: string | null) => {
    forgetToken();
    setToken(null);
    setRefusals(new Map());
    setEndedBecause(reason);
  }, []);

  const signIn = useCallback((next: string) => {
    saveToken(next);
    setRefusals(new Map());
    setEndedBecause(null);
    setToken(next);
  }, []);

  const api = useMemo(
    () =>
      token === null
        ? null
        : createApiClient(token, {
            onUnauthorized: (error) => end(`Signed out: ${error.message}`),
            onMissingScope: (scope, error) => setRefusals((current) => (current.get(scope) === error.message ? current : new Map(current).set(scope, error.message))),
          }),
    [token, end],
  );

  const session = useMemo<Session | null>(
    () =>
      api === null
        ? null
        : {
            api,
            can: (scope) => !refusals.has(scope),
            refusal: (scope) => refusals.get(scope) ?? null,
            signOut: () => end(null),
          },
    [api, refusals, end],
  );

  return { session, endedBecause, signIn };
}
