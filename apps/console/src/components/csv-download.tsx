import { useState } from "react";
import type { Scope } from "../api/types.ts";
import { ErrorBanner } from "./error-banner.tsx";
import styles from "./csv-download.module.css";

/** Saves a Blob under `filename` (an object URL clicked as a download, then released). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A CSV export button. The vendor token travels in a header, never a URL, so a plain link cannot
 * carry it: the file is fetched with the token and handed to the browser as a download.
 */
export function CsvDownload(props: { label: string; filename: string; load(): Promise<Blob>; scope?: Scope }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      saveBlob(await props.load(), props.filename);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className={styles.wrap}>
      <button type="button" onClick={download} disabled={busy}>
        {busy ? "Preparing…" : props.label}
      </button>
      <ErrorBanner error={error} />
    </div>
  );
}
