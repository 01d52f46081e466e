import styles from "./notices.module.css";

/** A load in progress: an indeterminate progress bar with a label. */
export function Loading(props: { label?: string }) {
  const label = props.label ?? "Loading…";
  return (
    <div className={styles.loading} role="status" data-testid="loading">
      <progress aria-label={label} />
      <span>{label}</span>
    </div>
  );
}
