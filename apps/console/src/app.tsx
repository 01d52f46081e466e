import { SessionContext } from "./session/session-context.tsx";
import { useSessionState } from "./session/use-session-state.ts";
import { AppShell } from "./shell/app-shell.tsx";
import { SignInPage } from "./sign-in/sign-in-page.tsx";

/** Signed out: the sign-in page. Signed in: the shell with the page the address names. */
export function App() {
  const { session, endedBecause, signIn } = useSessionState();
  if (!session) return <SignInPage onSignedIn={signIn} notice={endedBecause} />;
  return (
    <SessionContext.Provider value={session}>
      <AppShell />
    </SessionContext.Provider>
  );
}
