import { useRef, useState, type FormEvent } from "react";
import type { RedemptionCode } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { Dialog } from "../components/dialog.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { Loading } from "../components/loading.tsx";
import pageStyles from "../components/page.module.css";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { dateTime, fromLocalInput, usd } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import dialogStyles from "../keys/key-dialogs.module.css";
import styles from "./codes.module.css";

const PAGE_SIZE = 25;

function codeStatus(code: RedemptionCode): string {
  if (code.status) return code.status;
  if (code.redeemed_at) return "redeemed";
  if (code.expires_at && Date.parse(code.expires_at) <= Date.now()) return "expired";
  return "active";
}

const columns: Column<RedemptionCode>[] = [
  { header: "Code", cell: (code) => <code>{code.prefix ? `${code.prefix}…` : code.id}</code> },
  { header: "Amount", cell: (code) => usd(code.amount, "$0.00"), numeric: true },
  { header: "Status", cell: (code) => <StatusBadge status={codeStatus(code)} /> },
  { header: "Expires", cell: (code) => dateTime(code.expires_at ?? null) },
  { header: "Redeemed", cell: (code) => dateTime(code.redeemed_at ?? null, "—") },
  { header: "Created", cell: (code) => dateTime(code.created_at ?? null, "—") },
];

/** The codes just created, their plaintexts shown this once with one copy button for all. */
function CodesReveal(props: { codes: RedemptionCode[]; onClose(): void }) {
  const text = props.codes.map((code) => code.code ?? "").join("\n");
  const area = useRef<HTMLTextAreaElement>(null);
  const [state, setState] = useState<"idle" | "copied" | "select">("idle");
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      area.current?.focus();
      area.current?.select();
      setState("select");
    }
  };
  return (
    <Dialog title="Codes created" onClose={props.onClose}>
      <p className={styles.warning}>Copy these codes now: they are shown only once and cannot be shown again.</p>
      <label htmlFor="codes-value">
        {props.codes.length} {props.codes.length === 1 ? "code" : "codes"} of {usd(props.codes[0]?.amount ?? "0", "$0.00")}
      </label>
      <textarea id="codes-value" ref={area} className={styles.codes} readOnly rows={Math.min(10, props.codes.length)} value={text} data-testid="codes" data-autofocus />
      <span role="status" className={styles.status}>
        {state === "copied" ? "Copied to the clipboard." : state === "select" ? "Selected: press Ctrl+C (⌘C) to copy." : ""}
      </span>
      <div className={dialogStyles.actions}>
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" className="primary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

function CodesCreateDialog(props: { onClose(): void; onCreated(codes: RedemptionCode[]): void }) {
  const { api } = useSession();
  const [howMany, setHowMany] = useState("10");
  const [amount, setAmount] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const created = await vendorApi.createRedemptionCodes(api, { count: Number(howMany), amount: amount.trim(), ...(expiresAt ? { expires_at: fromLocalInput(expiresAt) } : {}) });
      props.onCreated(created.data);
    } catch (failure) {
      setError(failure);
      setSaving(false);
    }
  };
  return (
    <Dialog title="Create redemption codes" onClose={props.onClose}>
      <form className={dialogStyles.form} onSubmit={submit}>
        <div className={dialogStyles.pair}>
          <Field label="Number of codes">{(id) => <input id={id} type="number" min={1} max={1000} step={1} required value={howMany} onChange={(event) => setHowMany(event.target.value)} data-autofocus />}</Field>
          <Field label="Amount each (USD)">{(id) => <input id={id} inputMode="decimal" placeholder="5.00" required value={amount} onChange={(event) => setAmount(event.target.value)} />}</Field>
        </div>
        <Field label="Expires" hint="Blank: never. Your local time.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="datetime-local" value={expiresAt} onChange={(event) => setExpiresAt(event.target.value)} />}
        </Field>
        <ErrorBanner error={error} />
        <div className={dialogStyles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Creating…" : "Create codes"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * Redemption codes (contract section 19): a key holder redeems one with POST /v1/redeem and its
 * customer's wallet is credited once. Created in batches; the plaintexts are shown once.
 */
export function RedemptionCodesPage() {
  const { api, can } = useSession();
  const readable = can("customers:read");
  const pages = useCursorPages("codes");
  const [dialog, setDialog] = useState<"create" | RedemptionCode[] | null>(null);
  const list = useResource(() => vendorApi.listRedemptionCodes(api, { limit: PAGE_SIZE, cursor: pages.cursor }), JSON.stringify([pages.cursor]), readable);
  const codes = list.data?.data ?? [];
  return (
    <>
      <div className={pageStyles.heading}>
        <h1>Redemption codes</h1>
        {can("customers:write") ? (
          <button type="button" className="primary" onClick={() => setDialog("create")}>
            Create codes
          </button>
        ) : null}
      </div>
      {!readable ? <ScopeNotice scope="customers:read" /> : null}
      {readable ? <ErrorBanner error={list.error} /> : null}
      {readable && list.loading && !list.data ? <Loading label="Loading codes…" /> : null}
      {readable && list.data && codes.length === 0 ? <EmptyState title="No codes yet.">A customer's key redeems a code with POST /v1/redeem.</EmptyState> : null}
      {codes.length > 0 ? <DataTable caption="Redemption codes" columns={columns} rows={codes} rowKey={(code) => code.id} testId="codes-table" /> : null}
      <Pager
        label="Codes"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(list.data?.has_more && list.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => list.data?.next_cursor && pages.next(list.data.next_cursor)}
      />
      {dialog === "create" ? (
        <CodesCreateDialog
          onClose={() => setDialog(null)}
          onCreated={(created) => {
            setDialog(created);
            list.reload();
          }}
        />
      ) : null}
      {Array.isArray(dialog) ? <CodesReveal codes={dialog} onClose={() => setDialog(null)} /> : null}
    </>
  );
}
