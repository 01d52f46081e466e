import { useRef, useState } from "react";
import styles from "./secret-reveal.module.css";

type CopyState = "idle" | "copied" | "select";

/**
 * A plaintext key, shown this once (the API never returns it again), with a copy button. Where
 * the clipboard API is unavailable (an insecure origin) or refused, the text is selected for the
 * user to copy by hand.
 */
export function SecretReveal(props: { secret: string; label: string; warning?: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<CopyState>("idle");

  const selectAll = () => {
    input.current?.focus();
    input.current?.select();
  };

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(props.secret);
      setState("copied");
    } catch {
      selectAll();
      setState("select");
    }
  };

  return (
    <div className={styles.reveal}>
      <p className={styles.warning}>{props.warning ?? "Copy this key now: it is shown only once and cannot be shown again."}</p>
      <label htmlFor="secret-value">{props.label}</label>
      <div className={styles.row}>
        <input id="secret-value" ref={input} readOnly value={props.secret} className={styles.secret} data-testid="secret" onFocus={selectAll} data-autofocus />
        <button type="button" className="primary" onClick={copy}>
          Copy
        </button>
      </div>
      <span role="status" className={styles.status}>
        {state === "copied" ? "Copied to the clipboard." : state === "select" ? "Selected: press Ctrl+C (⌘C) to copy." : ""}
      </span>
    </div>
  );
}
