import styles from "./pager.module.css";

/** Previous / next over cursor pages (see use-cursor-pages). */
export function Pager(props: { pageNumber: number; hasPrevious: boolean; hasMore: boolean; onPrevious(): void; onNext(): void; label: string }) {
  if (!props.hasPrevious && !props.hasMore) return null;
  return (
    <nav className={styles.pager} aria-label={`${props.label} pages`}>
      <button type="button" onClick={props.onPrevious} disabled={!props.hasPrevious}>
        Previous
      </button>
      <span className="muted">Page {props.pageNumber}</span>
      <button type="button" onClick={props.onNext} disabled={!props.hasMore}>
        Next
      </button>
    </nav>
  );
}
