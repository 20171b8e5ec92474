import { cleanName } from '@cairn/contract/terminal';
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

/** The longest client name provenance keeps: the key's name after it is always whole. */
export const MAX_PROVENANCE_CLIENT = 40;

/**
 * Who wrote, as an entry's provenance records it: the client, and for an API key the key's name
 * ("Cursor 1.7.2 · key “laptop”"). The client's name is the client's to choose, so it cannot imitate
 * the key part (its separators and quotes are dropped) and is cut short; the key's name is never cut.
 */
export function provenanceOf(caller: Caller): string | null {
  const client = caller.client === null ? null : clientPart(caller.client);
  if (!caller.keyName) return client;
  return `${client ?? 'a client'} · key “${cleanName(caller.keyName)}”`;
}

/** Separators (middle dots, bullets, bars) and quotes of every kind: the marks of the key part. */
const KEY_PART_MARKS = /[·•∙⋅・|¦"'“”„‟‘’‚‛«»‹›〝〞＂]/g;

function clientPart(client: string): string | null {
  const cleaned = cleanName(client.replace(KEY_PART_MARKS, ' '));
  if (!cleaned) return null;
  const chars = Array.from(cleaned);
  return chars.length <= MAX_PROVENANCE_CLIENT
    ? cleaned
    : `${chars
        .slice(0, MAX_PROVENANCE_CLIENT - 1)
        .join('')
        .trimEnd()}…`;
}
