import { useCallback, useEffect, useState } from "react";
import { detailAt, navigate, pageAt, type Page } from "./routes.ts";

interface Location {
  page: Page;
  detail: string | null;
}

function here(): Location {
  return { page: pageAt(window.location.pathname), detail: detailAt(window.location.pathname) };
}

/** The current page (and its detail) from the address bar, kept in step with back/forward; `go` pushes a page. */
export function usePage(): { page: Page; detail: string | null; go(page: Page, detail?: string | null): void } {
  const [location, setLocation] = useState<Location>(here);

  useEffect(() => {
    const onPop = () => setLocation((current) => {
      const next = here();
      return next.page === current.page && next.detail === current.detail ? current : next;
    });
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  const go = useCallback((next: Page, detail?: string | null) => navigate(next, detail), []);
  return { ...location, go };
}
