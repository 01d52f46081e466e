import { useState, type FormEvent } from "react";
import { WEBHOOK_EVENTS, type Webhook, type WebhookWithSecret } from "../api/types.ts";
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
import { SecretReveal } from "../components/secret-reveal.tsx";
import { dateTime } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import { PageLink } from "../router/page-link.tsx";
import { useSession } from "../session/session-context.tsx";
import dialogStyles from "../keys/key-dialogs.module.css";

const PAGE_SIZE = 20;

/** A new endpoint: its URL and the events it receives; the signing secret is shown once. */
function WebhookCreateDialog(props: { onClose(): void; onCreated(): void }) {
  const { api } = useSession();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      setCreated(await vendorApi.createWebhook(api, { url: url.trim(), events }));
      props.onCreated();
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  };
  if (created) {
    return (
      <Dialog title="Webhook created" onClose={props.onClose}>
        <p className={dialogStyles.summary}>
          Events to <code>{created.url}</code> carry <code>x-gateway-signature: t=…,v1=…</code>, an HMAC-SHA256 of <code>{"<t>.<body>"}</code> with this secret.
        </p>
        <SecretReveal secret={created.secret} label="Signing secret" warning="Copy this secret now: it is shown only once and cannot be shown again." />
        <div className={dialogStyles.actions}>
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="Create webhook" onClose={props.onClose}>
      <form className={dialogStyles.form} onSubmit={submit}>
        <Field label="URL" hint="http(s); answered with a 2xx within 10 s, else retried with backoff for 24 h.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="url" required placeholder="https://example.com/gateway-events" value={url} onChange={(event) => setUrl(event.target.value)} data-autofocus />}
        </Field>
        <fieldset className={pageStyles.checks}>
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((name) => (
            <label key={name}>
              <input type="checkbox" checked={events.includes(name)} onChange={(event) => setEvents(event.target.checked ? [...events, name] : events.filter((chosen) => chosen !== name))} />
              <code>{name}</code>
            </label>
          ))}
        </fieldset>
        <ErrorBanner error={error} />
        <div className={dialogStyles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving || events.length === 0}>
            {saving ? "Creating…" : "Create webhook"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function WebhookDeleteDialog(props: { webhook: Webhook; onClose(): void; onDeleted(): void }) {
  const { api } = useSession();
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    setDeleting(true);
    setError(null);
    try {
      await vendorApi.deleteWebhook(api, props.webhook.id);
      props.onDeleted();
    } catch (failure) {
      setError(failure);
      setDeleting(false);
    }
  };
  return (
    <Dialog title="Delete webhook?" onClose={props.onClose}>
      <p className={dialogStyles.summary}>
        <code>{props.webhook.url}</code> receives no more events.
      </p>
      <ErrorBanner error={error} />
      <div className={dialogStyles.actions}>
        <button type="button" onClick={props.onClose} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={remove} disabled={deleting}>
          {deleting ? "Deleting…" : "Delete webhook"}
        </button>
      </div>
    </Dialog>
  );
}

/** The vendor's webhook endpoints (contract section 19): create, list, delete; each opens its deliveries. */
export function WebhooksPage() {
  const { api, can } = useSession();
  const allowed = can("webhooks:write");
  const pages = useCursorPages("webhooks");
  const [dialog, setDialog] = useState<"create" | Webhook | null>(null);
  const list = useResource(() => vendorApi.listWebhooks(api, { limit: PAGE_SIZE, cursor: pages.cursor }), JSON.stringify([pages.cursor]), allowed);
  const webhooks = list.data?.data ?? [];
  const columns: Column<Webhook>[] = [
    {
      header: "URL",
      cell: (webhook) => (
        <PageLink page="webhooks" detail={webhook.id} className={pageStyles.wrapText} aria-label={`Deliveries of ${webhook.url}`}>
          <code>{webhook.url}</code>
        </PageLink>
      ),
    },
    { header: "Events", cell: (webhook) => <span className={pageStyles.wrapText}>{webhook.events.join(", ")}</span> },
    { header: "Created", cell: (webhook) => dateTime(webhook.created_at ?? null, "—") },
    {
      header: "Actions",
      cell: (webhook) => (
        <button type="button" className={pageStyles.small} aria-label={`Delete ${webhook.url}`} onClick={() => setDialog(webhook)}>
          Delete
        </button>
      ),
    },
  ];
  if (!allowed) {
    return (
      <>
        <h1>Webhooks</h1>
        <ScopeNotice scope="webhooks:write" />
      </>
    );
  }
  return (
    <>
      <div className={pageStyles.heading}>
        <h1>Webhooks</h1>
        <button type="button" className="primary" onClick={() => setDialog("create")}>
          Create webhook
        </button>
      </div>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data ? <Loading label="Loading webhooks…" /> : null}
      {list.data && webhooks.length === 0 ? <EmptyState title="No webhooks yet.">Get key.quota_low, payment.succeeded and more as signed POSTs.</EmptyState> : null}
      {webhooks.length > 0 ? <DataTable caption="Webhooks" columns={columns} rows={webhooks} rowKey={(webhook) => webhook.id} testId="webhooks-table" /> : null}
      <Pager
        label="Webhooks"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(list.data?.has_more && list.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => list.data?.next_cursor && pages.next(list.data.next_cursor)}
      />
      {dialog === "create" ? <WebhookCreateDialog onClose={() => setDialog(null)} onCreated={list.reload} /> : null}
      {dialog && dialog !== "create" ? (
        <WebhookDeleteDialog
          webhook={dialog}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            setDialog(null);
            list.reload();
          }}
        />
      ) : null}
    </>
  );
}
