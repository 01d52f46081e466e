import { useState, type FormEvent } from "react";
import { Field } from "../components/field.tsx";
import { isValidRange, lastDays, type DayRange } from "./date-range.ts";
import styles from "./usage.module.css";

const PRESETS = [7, 30, 90];

/** From and to days (UTC, both included), with presets; applied on submit so typing a date does not reload. */
export function DateRangePicker(props: { value: DayRange; onChange(range: DayRange): void }) {
  const [draft, setDraft] = useState(props.value);
  const valid = isValidRange(draft);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (valid) props.onChange(draft);
  };
  const preset = (days: number) => {
    const range = lastDays(days);
    setDraft(range);
    props.onChange(range);
  };

  return (
    <form className={styles.range} onSubmit={apply} aria-label="Date range">
      <Field label="From (UTC)">
        {(id) => <input id={id} type="date" value={draft.from} max={draft.to} onChange={(event) => setDraft({ ...draft, from: event.target.value })} required />}
      </Field>
      <Field label="To (UTC)">
        {(id) => <input id={id} type="date" value={draft.to} min={draft.from} onChange={(event) => setDraft({ ...draft, to: event.target.value })} required />}
      </Field>
      <button type="submit" className="primary" disabled={!valid}>
        Apply
      </button>
      <div className={styles.presets} role="group" aria-label="Presets">
        {PRESETS.map((days) => (
          <button type="button" key={days} onClick={() => preset(days)}>
            {days} days
          </button>
        ))}
      </div>
    </form>
  );
}
