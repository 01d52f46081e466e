import { useCallback, useState } from "react";

interface Pages {
  filter: string;
  cursors: (string | null)[];
}

/**
 * Cursor paging (`next_cursor` of each page): the cursors of the pages before the current one are
 * kept, so Previous goes back without offsets. A new `filter` (everything else the list query
 * holds) starts again at the first page in the same render, so no stale cursor is ever sent.
 */
export function useCursorPages(filter: string) {
  const [pages, setPages] = useState<Pages>({ filter, cursors: [null] });
  const current = pages.filter === filter ? pages.cursors : [null];
  if (pages.filter !== filter) setPages({ filter, cursors: [null] });

  const next = useCallback((cursor: string) => setPages((state) => ({ ...state, cursors: [...state.cursors, cursor] })), []);
  const previous = useCallback(() => setPages((state) => (state.cursors.length > 1 ? { ...state, cursors: state.cursors.slice(0, -1) } : state)), []);
  return { cursor: current[current.length - 1] ?? null, pageNumber: current.length, hasPrevious: current.length > 1, next, previous };
}
