import { clientProductName } from '@cairn/contract';

/** The key part of provenance ("Cursor 1.7.2 · key “laptop”"): the server keeps it whole and unimitable. */
const KEY_PART = ' · key “';
/** Room for the client's own name; the key's name (at most 64 characters) is never cut. */
const CLIENT_ROOM = 40;

/** Which client made a change, readable: a browser's User-Agent is the portal itself; a known client by its product name (contract's table); a long client name is cut, never the key's name after it. */
export function clientLabel(client: string | null | undefined): string | undefined {
  if (!client) return undefined;
  if (/^Mozilla\//.test(client)) return 'the portal';
  const at = client.lastIndexOf(KEY_PART);
  const name = clientProductName(at === -1 ? client : client.slice(0, at));
  const key = at === -1 ? '' : client.slice(at);
  return (name.length > CLIENT_ROOM ? `${name.slice(0, CLIENT_ROOM - 1)}…` : name) + key;
}
