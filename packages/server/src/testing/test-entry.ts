import { contentHash } from '../domain/similarity.js';
import type { Entry } from '../store/types.js';

/** An entry as the store holds it, written straight to a store in tests: plain defaults for every field a test leaves out. */
export function testEntry(fields: Pick<Entry, 'id' | 'datapackId' | 'title' | 'content'> & Partial<Entry>): Entry {
  const at = fields.updatedAt ?? '2026-01-01T00:00:00.000Z';
  return {
    kind: 'note',
    tags: [],
    contentHash: contentHash(fields.title, fields.content),
    version: 1,
    createdBy: 'u',
    createdClient: null,
    createdAt: at,
    updatedBy: 'u',
    updatedClient: null,
    updatedAt: at,
    deletedAt: null,
    ...fields,
  };
}
