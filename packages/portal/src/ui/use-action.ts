import { useState } from 'react';
import { messageOf } from '../api/client.js';

/**
 * What a form or button does when sent: `busy` while its action runs, and the server's refusal in
 * `error` (cleared when it runs again). Steps after a failed call in the action do not run.
 */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  run: (action: () => Promise<unknown>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
