import type { Scope } from "../api/types.ts";

/**
 * The console's pages and their paths under /console/ (deep links are served index.html by the
 * control plane, so each path can be bookmarked and reloaded). A page may have a detail path:
 * /console/keys/key_…, /console/customers/cus_…, /console/webhooks/wh_…. `scopes`: the page shows
 * in the navigation when the token has any of them (none: always).
 */
export const ROUTES = [
  { page: "keys", path: "keys", title: "Keys", scopes: [] },
  { page: "customers", path: "customers", title: "Customers", scopes: ["customers:read", "customers:write"] },
  { page: "plans", path: "plans", title: "Plans", scopes: ["customers:read", "plans:write"] },
  { page: "codes", path: "redemption-codes", title: "Codes", scopes: ["customers:read", "customers:write"] },
  { page: "usage", path: "usage", title: "Usage", scopes: [] },
  { page: "requests", path: "requests", title: "Requests", scopes: [] },
  { page: "playground", path: "playground", title: "Playground", scopes: [] },
  { page: "webhooks", path: "webhooks", title: "Webhooks", scopes: ["webhooks:write"] },
  { page: "server-options", path: "server-options", title: "Server options", scopes: [] },
  { page: "upstreams", path: "upstreams", title: "Upstreams", scopes: [] },
] as const satisfies readonly { page: string; path: string; title: string; scopes: readonly Scope[] }[];

export type Page = (typeof ROUTES)[number]["page"];

export const BASE = import.meta.env.BASE_URL; // "/console/"

export function pathOf(page: Page, detail?: string | null): string {
  const path = `${BASE}${ROUTES.find((route) => route.page === page)!.path}`;
  return detail ? `${path}/${encodeURIComponent(detail)}` : path;
}

function segments(pathname: string): string[] {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : "";
  return rest.split("/");
}

/** The page a location names; the bare /console and anything unknown show the keys. */
export function pageAt(pathname: string): Page {
  const first = segments(pathname)[0] ?? "";
  return ROUTES.find((route) => route.path === first)?.page ?? "keys";
}

/** The detail a location names (`key_…` in /console/keys/key_…), or null. */
export function detailAt(pathname: string): string | null {
  const second = segments(pathname)[1];
  if (!second) return null;
  try {
    return decodeURIComponent(second);
  } catch {
    return null;
  }
}

export function titleOf(page: Page): string {
  return ROUTES.find((route) => route.page === page)!.title;
}

/** Goes to a page (and detail) from anywhere: the shell follows the address (popstate). */
export function navigate(page: Page, detail?: string | null): void {
  const path = pathOf(page, detail);
  if (window.location.pathname !== path) window.history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}
