import { useCallback, useEffect, useRef, useState } from "react";

export interface Resource<Data> {
  data: Data | null;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` whenever `key` changes (a string of everything the load reads), keeping the last
 * data while the next load runs; an answer that arrives after a newer load started is dropped.
 */
export function useResource<Data>(load: () => Promise<Data>, key: string, enabled = true): Resource<Data> {
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(enabled);
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    if (!enabled) {
      setLoading(false);
      return;
    }
    const ticket = ++latest.current;
    setLoading(true);
    loadRef.current().then(
      (result) => {
        if (ticket !== latest.current) return;
        setData(result);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (ticket !== latest.current) return;
        setError(failure);
        setLoading(false);
      },
    );
  }, [key, round, enabled]);

  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { data, error, loading, reload };
}
