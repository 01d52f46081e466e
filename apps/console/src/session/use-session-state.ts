import { useCallback, useEffect, useMemo, useState } from "react";
import { createApiClient } from "../api/api-client.ts";
import { ApiError } from "../api/api-error.ts";
import type { Scope, VendorToken } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import type { Session } from "./session-context.tsx";
import { forgetToken, readToken, saveToken } from "./token-storage.ts";

/** A token kept from before a reload, while GET /api/token reads its scopes again. */
export interface Restoring {
  /** Why that read failed (other than a 401, which ends the session); null while it runs. */
  error: unknown;
  retry(): void;
  signOut(): void;
}

export interface SessionState {
  session: Session | null;
  restoring: Restoring | null;
  /** Why the last session ended, when the API ended it (a revoked token), for the sign-in page. */
  endedBecause: string | null;
  signIn(token: string, identity: VendorToken): void;
}

/** The token, who it is (GET /api/token), the scopes refused since, and the session built from them. */
export function useSessionState(): SessionState {
  const [token, setToken] = useState<string | null>(() => readToken());
  const [identity, setIdentity] = useState<VendorToken | null>(null);
  const [identityError, setIdentityError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const [refusals, setRefusals] = useState<ReadonlyMap<Scope, string>>(() => new Map());
  const [endedBecause, setEndedBecause] = useState<string | null>(null);

  const end = useCallback((reason: string | null) => {
    forgetToken();
    setToken(null);
    setIdentity(null);
    setIdentityError(null);
    setRefusals(new Map());
    setEndedBecause(reason);
  }, []);

  const signIn = useCallback((next: string, who: VendorToken) => {
    saveToken(next);
    setRefusals(new Map());
    setEndedBecause(null);
    setIdentityError(null);
    setIdentity(who);
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

  // After a reload only the token is kept: read its scopes again before any page renders.
  useEffect(() => {
    if (api === null || identity !== null) return;
    let current = true;
    setIdentityError(null);
    vendorApi.token(api).then(
      (who) => current && setIdentity(who),
      // A 401 has ended the session already (onUnauthorized): the sign-in page says why.
      (failure: unknown) => current && !(failure instanceof ApiError && failure.isUnauthorized) && setIdentityError(failure),
    );
    return () => {
      current = false;
    };
  }, [api, identity, attempt]);

  const session = useMemo<Session | null>(
    () =>
      api === null || identity === null
        ? null
        : {
            api,
            identity,
            can: (scope) => identity.scopes.includes(scope) && !refusals.has(scope),
            refusal: (scope) => refusals.get(scope) ?? null,
            signOut: () => end(null),
          },
    [api, identity, refusals, end],
  );

  const restoring = useMemo<Restoring | null>(
    () => (api !== null && identity === null ? { error: identityError, retry: () => setAttempt((value) => value + 1), signOut: () => end(null) } : null),
    [api, identity, identityError, end],
  );

  return { session, restoring, endedBecause, signIn };
}
