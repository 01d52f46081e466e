import type { ApiKey } from "../api/types.ts";
import { useSession } from "../session/session-context.tsx";
import styles from "./keys.module.css";

export type KeyAction = "edit" | "top-up" | "toggle" | "rotate" | "revoke";

/**
 * The buttons of one key, only those its status and the token's scopes allow: a revoked key has
 * none, top-up needs a quota to add to, edit/top-up/disable/enable/rotate need keys:update and
 * revoke keys:revoke.
 */
export function KeyActions(props: { apiKey: ApiKey; busy: boolean; onAction(action: KeyAction, key: ApiKey): void }) {
  const { can } = useSession();
  const { apiKey, busy } = props;
  if (apiKey.status === "revoked") return <span className="muted">—</span>;
  const label = apiKey.name || apiKey.prefix;
  const act = (action: KeyAction) => () => props.onAction(action, apiKey);
  const update = can("keys:update");
  return (
    <div className={styles.actions} role="group" aria-label={`Actions for ${label}`}>
      {update ? (
        <button type="button" onClick={act("edit")} aria-label={`Edit ${label}`}>
          Edit
        </button>
      ) : null}
      {update && apiKey.quota !== null ? (
        <button type="button" onClick={act("top-up")} aria-label={`Top up ${label}`}>
          Top up
        </button>
      ) : null}
      {update ? (
        <button type="button" onClick={act("toggle")} disabled={busy} aria-label={`${apiKey.status === "active" ? "Disable" : "Enable"} ${label}`}>
          {apiKey.status === "active" ? "Disable" : "Enable"}
        </button>
      ) : null}
      {update ? (
        <button type="button" onClick={act("rotate")} aria-label={`Rotate ${label}`}>
          Rotate
        </button>
      ) : null}
      {can("keys:revoke") ? (
        <button type="button" className={styles.revoke} onClick={act("revoke")} aria-label={`Revoke ${label}`}>
          Revoke
        </button>
      ) : null}
    </div>
  );
}
