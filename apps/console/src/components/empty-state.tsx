import type { ReactNode } from "react";
import styles from "./notices.module.css";

/** Nothing to show yet, and what would make something appear. */
export function EmptyState(props: { title: string; children?: ReactNode }) {
  return (
    <div className={styles.empty} data-testid="empty">
      <strong>{props.title}</strong>
      {props.children ? <div className="muted">{props.children}</div> : null}
    </div>
  );
}
