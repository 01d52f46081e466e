import type { Scope } from "../api/types.ts";
import { useSession } from "../session/session-context.tsx";
import styles from "./notices.module.css";

/**
 * Shown instead of a page the token may not use: the API's own refusal message once it refused,
 * else what the token's scopes (GET /api/token) already said.
 */
export function ScopeNotice(props: { scope: Scope }) {
  const message = useSession().refusal(props.scope);
  return (
    <div className={styles.warn} role="note" data-testid="scope-notice">
      <strong>Not available with this token.</strong> {message ?? `This vendor token lacks the scope '${props.scope}'.`}
    </div>
  );
}
