import type { KeyScope } from '../store/types.js';

/** Who is asking, and through what; every domain verb takes one. */
export interface Caller {
  userId: string;
  /** The client that made the request (its User-Agent), recorded as provenance. */
  client: string | null;
  via: 'api_key' | 'legacy_api_key' | 'oauth' | 'session' | 'cli';
  keyId?: string;
  /** The API key's name, shown beside the client in provenance ("Cursor 1.7.2 · key “laptop”"). */
  keyName?: string;
  /** For an OAuth token: the app (OAuth client) it was granted to. */
  oauthClientId?: string;
  /** For a portal session: its id (not its token), so the audit trail can tell sessions apart. */
  sessionId?: string;
  /** What the credential allows: a `read` key reaches only the reading verbs. Sessions, the CLI and OAuth `mcp` grants are read-write. */
  scope: KeyScope;
  /** The access epoch the credential was checked under (cache/epoch-cache.ts): the request's memberships and datapacks are read at it too. */
  accessEpoch?: number;
}

/** Who wrote, as an entry's provenance records it: the client, and for an API key the key's name. */
export function provenanceOf(caller: Caller): string | null {
  if (!caller.keyName) return caller.client;
  return `${caller.client ?? 'a client'} · key “${caller.keyName}”`.slice(0, 200);
}
