/**
 * The console's pages and their paths under /console/ (deep links are served index.html by the
 * control plane, so each path can be bookmarked and reloaded).
 */
export const ROUTES = [
  { page: "keys", path: "keys", title: "Keys" },
  { page: "usage", path: "usage", title: "Usage" },
  { page: "requests", path: "requests", title: "Requests" },
  { page: "server-options", path: "server-options", title: "Server options" },
  { page: "upstreams", path: "upstreams", title: "Upstreams" },
] as const;

export type Page = (typeof ROUTES)[number]["page"];

export const BASE = import.meta.env.BASE_URL; // "/console/"

export function pathOf(page: Page): string {
  return `${BASE}${ROUTES.find((route) => route.page === page)!.path}`;
}

/** The page a location names; the bare /console and anything unknown show the keys. */
export function pageAt(pathname: string): Page {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : "";
  const first = rest.split("/")[0] ?? "";
  return ROUTES.find((route) => route.path === first)?.page ?? "keys";
}

export function titleOf(page: Page): string {
  return ROUTES.find((route) => route.page === page)!.title;
}
