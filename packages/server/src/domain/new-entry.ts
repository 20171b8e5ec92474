import type { Entry } from '../store/types.js';
import type { DomainDeps } from './deps.js';
import { contentHash } from './similarity.js';

/** What only the caller of newEntry knows; the rest of a first version is the same for every new entry. */
export interface NewEntryFields
  extends Pick<Entry, 'datapackId' | 'kind' | 'title' | 'content' | 'tags'>,
    Partial<Pick<Entry, 'applies' | 'supersedes' | 'replacedBy' | 'owner' | 'reviewBy' | 'expires' | 'contentHash'>> {
  /** Who made it (a user id) and with which client. */
  by: string;
  client: Entry['createdClient'];
  /** When it was made and stored; default: now. A captured turn was made when it was said. */
  createdAt?: string;
  updatedAt?: string;
}

/** An entry's first version, with a new id: the one place that says what a new entry holds. */
export function newEntry(deps: Pick<DomainDeps, 'newId' | 'now'>, fields: NewEntryFields): Entry {
  const { by, client, createdAt, updatedAt, ...own } = fields;
  const now = updatedAt ?? deps.now();
  return {
    id: deps.newId('ent'),
    contentHash: contentHash(own.title, own.content),
    ...own,
    version: 1,
    createdBy: by,
    createdClient: client,
    createdAt: createdAt ?? now,
    updatedBy: by,
    updatedClient: client,
    updatedAt: now,
    deletedAt: null,
  };
}
