import { useId, type ReactNode } from "react";
import styles from "./field.module.css";

/** A labelled control: `children` receives the id the label points at. */
export function Field(props: { label: string; hint?: string; children(id: string, hintId: string | undefined): ReactNode }) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div className={styles.field}>
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, hintId)}
      {props.hint ? (
        <span id={hintId} className={styles.hint}>
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}
