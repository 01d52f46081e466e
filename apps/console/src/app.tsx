import { SessionContext } from "./session/session-context.tsx";
import { useSessionState } from "./session/use-session-state.ts";
import { AppShell } from "./shell/app-shell.tsx";
import { SessionCheck } from "./sign-in/session-check.tsx";
import { SignInPage } from "./sign-in/sign-in-page.tsx";

/**
 * Signed out: the sign-in page. A token kept from before a reload: its check (GET /api/token).
 * Signed in: the shell with the page the address names.
 */
export function App() {
  const { session, restoring, endedBecause, signIn } = useSessionState();
  if (session) {
    return (
      <SessionContext.Provider value={session}>
        <AppShell />
      </SessionContext.Provider>
    );
  }
  if (restoring) return <SessionCheck restoring={restoring} />;
  return <SignInPage onSignedIn={signIn} notice={endedBecause} />;
}
