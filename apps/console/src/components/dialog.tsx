import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from "react";
import styles from "./dialog.module.css";

const FOCUSABLE = 'button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), a[href], [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog on the native <dialog>: the page behind is inert, Escape closes it (its `cancel`
 * event), Tab and Shift+Tab wrap around inside it, and focus returns to where it was on close.
 * Rendered only while open: mounting opens it, unmounting closes it. `data-autofocus` marks the
 * control that gets focus first. `wide` for a table (a request's attempts).
 */
export function Dialog(props: { title: string; onClose(): void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;

  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    // showModal focuses the first control (Close); the form's first field is the better start.
    dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  const trapTab = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== "Tab") return;
    const items = Array.from(ref.current!.querySelectorAll<HTMLElement>(FOCUSABLE));
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      className={props.wide ? `${styles.dialog} ${styles.wide}` : styles.dialog}
      aria-labelledby={titleId}
      onKeyDown={trapTab}
      onCancel={(event) => {
        event.preventDefault();
        onClose.current();
      }}
    >
      <div className={styles.header}>
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" className="link" onClick={() => onClose.current()} aria-label="Close dialog">
          Close
        </button>
      </div>
      <div className={styles.body}>{props.children}</div>
    </dialog>
  );
}
