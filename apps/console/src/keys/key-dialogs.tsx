import type { ApiKey } from "../api/types.ts";
import type { KeyAction } from "./key-actions.tsx";
import { KeyCreateDialog } from "./key-create-dialog.tsx";
import { KeyEditDialog } from "./key-edit-dialog.tsx";
import { KeyRevokeDialog } from "./key-revoke-dialog.tsx";
import { KeyRotateDialog } from "./key-rotate-dialog.tsx";
import { KeyTopUpDialog } from "./key-top-up-dialog.tsx";

export type OpenDialog = { action: "create" } | { action: Exclude<KeyAction, "toggle">; key: ApiKey };

/**
 * The one key dialog open at a time. Dialogs that show a plaintext (create, rotate) stay open on
 * success until the user is done with it; the others close once the change is saved.
 */
export function KeyDialogs(props: { open: OpenDialog | null; onClose(): void; onChanged(): void }) {
  const { open, onClose, onChanged } = props;
  if (!open) return null;
  const saved = () => {
    onChanged();
    onClose();
  };
  switch (open.action) {
    case "create":
      return <KeyCreateDialog onClose={onClose} onCreated={onChanged} />;
    case "edit":
      return <KeyEditDialog apiKey={open.key} onClose={onClose} onSaved={saved} />;
    case "top-up":
      return <KeyTopUpDialog apiKey={open.key} onClose={onClose} onSaved={saved} />;
    case "rotate":
      return <KeyRotateDialog apiKey={open.key} onClose={onClose} onRotated={onChanged} />;
    case "revoke":
      return <KeyRevokeDialog apiKey={open.key} onClose={onClose} onRevoked={saved} />;
    default: {
      const unknown: never = open;
      throw new Error(`no dialog for ${JSON.stringify(unknown)}`);
    }
  }
}
