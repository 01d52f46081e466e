import { useCallback, useEffect, useState } from "react";
import { pageAt, pathOf, type Page } from "./routes.ts";

/** The current page from the address bar, kept in step with back/forward; `go` pushes a page. */
export function usePage(): { page: Page; go(page: Page): void } {
  const [page, setPage] = useState<Page>(() => pageAt(window.location.pathname));

  useEffect(() => {
    const onPop = () => setPage(pageAt(window.location.pathname));
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  const go = useCallback((next: Page) => {
    if (window.location.pathname !== pathOf(next)) window.history.pushState(null, "", pathOf(next));
    setPage(next);
  }, []);

  return { page, go };
}
