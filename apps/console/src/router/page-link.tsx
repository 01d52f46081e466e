import type { ReactNode } from "react";
import { navigate, pathOf, type Page } from "./routes.ts";

/** A link to a console page that stays in the app (a modified click opens a new tab as usual). */
export function PageLink(props: { page: Page; detail?: string | null; children: ReactNode; className?: string; title?: string; "aria-label"?: string }) {
  return (
    <a
      href={pathOf(props.page, props.detail)}
      className={props.className}
      title={props.title}
      aria-label={props["aria-label"]}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(props.page, props.detail);
      }}
    >
      {props.children}
    </a>
  );
}
