import { createContext, useContext } from 'react';
import type { Me, PortalConfig } from './api/types.js';

/** The signed-in user, the server's addresses, and a way to refresh who is signed in. */
export interface Session {
  me: Me;
  config: PortalConfig;
  refresh: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

/** The session of a signed-in page (only rendered when there is one). */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}
