import { useState, type FormEvent } from "react";
import type { CheckoutSession, Customer } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { usd } from "../format.ts";
import { useSession } from "../session/session-context.tsx";
import styles from "../keys/key-dialogs.module.css";

/** A manual credit to the customer's wallet (audited, with its reason). */
export function GrantCreditsDialog(props: { customer: Customer; onClose(): void; onSaved(): void }) {
  const { api } = useSession();
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await vendorApi.grantCredits(api, props.customer.id, amount.trim(), reason.trim());
      props.onSaved();
    } catch (failure) {
      setError(failure);
      setSaving(false);
    }
  };
  return (
    <Dialog title={`Grant credits to ${props.customer.name}`} onClose={props.onClose}>
      <form className={styles.form} onSubmit={submit}>
        <p className={styles.summary}>
          Balance now: <strong>{usd(props.customer.balance, "$0.00")}</strong>
        </p>
        <Field label="Amount (USD)">{(id) => <input id={id} inputMode="decimal" placeholder="10.00" required value={amount} onChange={(event) => setAmount(event.target.value)} data-autofocus />}</Field>
        <Field label="Reason" hint="Kept in the audit log.">
          {(id, hint) => <input id={id} aria-describedby={hint} maxLength={500} placeholder="Welcome credit" value={reason} onChange={(event) => setReason(event.target.value)} />}
        </Field>
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Granting…" : "Grant credits"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * A card payment through Stripe Checkout: the gateway creates the session, the vendor opens its
 * page (or sends the link to the customer); the wallet is credited when Stripe confirms.
 */
export function CheckoutDialog(props: { customer: Customer; onClose(): void }) {
  const { api } = useSession();
  const [amount, setAmount] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [session, setSession] = useState<CheckoutSession | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const back = `${window.location.origin}${window.location.pathname}`;
      setSession(await vendorApi.createCheckoutSession(api, props.customer.id, { amount: amount.trim(), success_url: `${back}?payment=succeeded`, cancel_url: `${back}?payment=canceled` }));
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  };
  const title = `Take a payment from ${props.customer.name}`;
  if (session) {
    return (
      <Dialog title={title} onClose={props.onClose}>
        <p className={styles.summary}>
          Checkout session <code>{session.id}</code> is ready. Open it to pay by card, or send the link to the customer; the wallet is credited once the payment succeeds.
        </p>
        <p className={styles.summary}>
          <a href={session.url} target="_blank" rel="noopener noreferrer" data-testid="checkout-url">
            Open the payment page
          </a>
        </p>
        <div className={styles.actions}>
          <button type="button" className="primary" onClick={props.onClose} data-autofocus>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title={title} onClose={props.onClose}>
      <form className={styles.form} onSubmit={submit}>
        <Field label="Amount (USD)">{(id) => <input id={id} inputMode="decimal" placeholder="20.00" required value={amount} onChange={(event) => setAmount(event.target.value)} data-autofocus />}</Field>
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Creating…" : "Create payment link"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
