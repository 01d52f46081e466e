import { useEffect } from "react";
import { ROUTES, pathOf, titleOf, type Page } from "../router/routes.ts";
import { usePage } from "../router/use-page.ts";
import { useSession } from "../session/session-context.tsx";
import { KeysPage } from "../keys/keys-page.tsx";
import { RequestsPage } from "../requests/requests-page.tsx";
import { ServerOptionsPage } from "../server-options/server-options-page.tsx";
import { UpstreamsPage } from "../upstreams/upstreams-page.tsx";
import { UsagePage } from "../usage/usage-page.tsx";
import { CustomersPage } from "../customers/customers-page.tsx";
import { CustomerPage } from "../customers/customer-page.tsx";
import { PlansPage } from "../plans/plans-page.tsx";
import { RedemptionCodesPage } from "../codes/redemption-codes-page.tsx";
import { WebhooksPage } from "../webhooks/webhooks-page.tsx";
import { WebhookPage } from "../webhooks/webhook-page.tsx";
import { KeyPage } from "../keys/key-page.tsx";
import { PlaygroundPage } from "../playground/playground-page.tsx";
import styles from "./app-shell.module.css";

function PageBody(props: { page: Page; detail: string | null }) {
  switch (props.page) {
    case "keys":
      return props.detail ? <KeyPage key={props.detail} keyId={props.detail} /> : <KeysPage />;
    case "customers":
      return props.detail ? <CustomerPage key={props.detail} customerId={props.detail} /> : <CustomersPage />;
    case "plans":
      return <PlansPage />;
    case "codes":
      return <RedemptionCodesPage />;
    case "webhooks":
      return props.detail ? <WebhookPage key={props.detail} webhookId={props.detail} /> : <WebhooksPage />;
    case "playground":
      return <PlaygroundPage />;
    case "usage":
      return <UsagePage />;
    case "requests":
      return <RequestsPage />;
    case "server-options":
      return <ServerOptionsPage />;
    case "upstreams":
      return <UpstreamsPage />;
    default: {
      const unknown: never = props.page;
      throw new Error(`no page ${String(unknown)}`);
    }
  }
}

/** Header with the navigation, the token's vendor and prefix, sign-out, and the page the address names. */
export function AppShell() {
  const { signOut, identity, can } = useSession();
  const { page, detail, go } = usePage();
  const routes = ROUTES.filter((route) => route.page === page || route.scopes.length === 0 || route.scopes.some((scope) => can(scope)));

  useEffect(() => {
    document.title = `${titleOf(page)} · Gateway console`;
  }, [page]);

  return (
    <div className={styles.shell}>
      <a className={styles.skip} href="#main">
        Skip to content
      </a>
      <header className={styles.header}>
        <span className={styles.brand}>Gateway console</span>
        <nav aria-label="Console" className={styles.nav}>
          {routes.map((route) => (
            <a
              key={route.page}
              href={pathOf(route.page)}
              aria-current={route.page === page ? "page" : undefined}
              onClick={(event) => {
                if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
                event.preventDefault();
                go(route.page);
              }}
            >
              {route.title}
            </a>
          ))}
        </nav>
        <span className={styles.identity} data-testid="token-identity" title={`Signed in as ${identity.vendor.name} with the vendor token ${identity.name} (${identity.prefix}…)`}>
          <span className={styles.vendor}>{identity.vendor.name}</span>
          <code className="muted">{identity.prefix}…</code>
        </span>
        <button type="button" onClick={signOut} className={styles.signOut}>
          Sign out
        </button>
      </header>
      <main id="main" className={styles.main} tabIndex={-1}>
        <PageBody page={page} detail={detail} />
      </main>
    </div>
  );
}
