import { useState, type FormEvent } from "react";
import { Field } from "../components/field.tsx";
import styles from "./requests.module.css";

export interface RequestFilterValues {
  id: string;
  keyId: string;
  model: string;
  status: string;
}

export const NO_FILTERS: RequestFilterValues = { id: "", keyId: "", model: "", status: "" };

/** Request id, key id, model and status, applied on submit (Enter in any field). */
export function RequestFilters(props: { value: RequestFilterValues; onApply(filters: RequestFilterValues): void }) {
  const [draft, setDraft] = useState(props.value);
  const set = (patch: Partial<RequestFilterValues>) => setDraft({ ...draft, ...patch });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    props.onApply({ id: draft.id.trim(), keyId: draft.keyId.trim(), model: draft.model.trim(), status: draft.status });
  };
  const clear = () => {
    setDraft(NO_FILTERS);
    props.onApply(NO_FILTERS);
  };
  return (
    <form className={styles.filters} onSubmit={apply} role="search" aria-label="Filter requests">
      <Field label="Request id">{(id) => <input id={id} value={draft.id} placeholder="req_…" spellCheck={false} onChange={(event) => set({ id: event.target.value })} />}</Field>
      <Field label="Key id">{(id) => <input id={id} value={draft.keyId} placeholder="key_…" spellCheck={false} onChange={(event) => set({ keyId: event.target.value })} />}</Field>
      <Field label="Model">{(id) => <input id={id} value={draft.model} placeholder="gpt-4o-mini" spellCheck={false} onChange={(event) => set({ model: event.target.value })} />}</Field>
      <Field label="Status">
        {(id) => (
          <select id={id} value={draft.status} onChange={(event) => set({ status: event.target.value })}>
            <option value="">Any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
            <option value="client_aborted">client aborted</option>
          </select>
        )}
      </Field>
      <div className={styles.filterButtons}>
        <button type="submit" className="primary">
          Filter
        </button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
