import { useState } from "react";
import type { ApiKey } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { useSession } from "../session/session-context.tsx";
import styles from "./key-dialogs.module.css";

/** Revoking is final, so it asks first; Cancel has the focus. */
export function KeyRevokeDialog(props: { apiKey: ApiKey; onClose(): void; onRevoked(): void }) {
  const { api } = useSession();
  const [revoking, setRevoking] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const revoke = async () => {
    setRevoking(true);
    setError(null);
    try {
      await vendorApi.revokeKey(api, props.apiKey.id);
      props.onRevoked();
    } catch (failure) {
      setError(failure);
      setRevoking(false);
    }
  };

  return (
    <Dialog title="Revoke key?" onClose={props.onClose}>
      <p className={styles.summary}>
        <strong>{props.apiKey.name || "Unnamed key"}</strong> ({props.apiKey.prefix}…) stops working on every gateway at once. Revoking cannot be undone.
      </p>
      <ErrorBanner error={error} />
      <div className={styles.actions}>
        <button type="button" onClick={props.onClose} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={revoke} disabled={revoking}>
          {revoking ? "Revoking…" : "Revoke key"}
        </button>
      </div>
    </Dialog>
  );
}
