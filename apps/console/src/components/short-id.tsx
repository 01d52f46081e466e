import { useState } from "react";
import styles from "./short-id.module.css";

/** "req_01HZX…9f3a": the id's prefix and its last characters. */
export function shorten(id: string, keep = 4): string {
  const underscore = id.indexOf("_");
  const head = underscore >= 0 && underscore < 6 ? id.slice(0, underscore + 1) : "";
  const body = id.slice(head.length);
  if (body.length <= keep * 2 + 1) return id;
  return `${head}${body.slice(0, keep)}…${body.slice(-keep)}`;
}

/**
 * A long id shortened on screen, the full value in its title (hover) and copied by a click, so a
 * table row stays one line at 1280 px. The full id stays in the DOM for find-in-page and tests.
 */
export function ShortId(props: { id: string; keep?: number }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      if (!navigator.clipboard) return;
      await navigator.clipboard.writeText(props.id);
      setCopied(true);
      window.setTimeout(() => setCopied(false), 1500);
    } catch {
      // The clipboard refused: the title still shows the whole id.
    }
  };
  return (
    <button type="button" className={styles.id} title={`${props.id} (click to copy)`} aria-label={`Copy ${props.id}`} data-full-id={props.id} onClick={copy}>
      <code aria-hidden="true">{shorten(props.id, props.keep)}</code>
      <span className="visually-hidden">{props.id}</span>
      {copied ? <span className={styles.copied}>copied</span> : null}
    </button>
  );
}
