import { useCallback, useEffect, useState } from 'react';
import { messageOf } from '../api/client.js';

/** Loads data on mount (and on reload()), keeping the last data while a reload runs. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[] = [],
): { data: T | undefined; error: string | undefined; loading: boolean; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps (and reload's tick) decide when to load again, not `load`'s identity
  useEffect(() => {
    let live = true;
    setLoading(true);
    load().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (!live) return;
        setError(messageOf(e));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [tick, ...deps]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}
