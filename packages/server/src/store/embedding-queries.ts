import { parseTags } from './row-mappers.js';
import type { StoreContext } from './store-context.js';
import type { TextToEmbed } from './types.js';

// Entries' vectors from the embeddings provider (src/embeddings/), one per entry, tagged with the version and model.

export async function entriesToEmbed(s: StoreContext, model: string, limit: number): Promise<TextToEmbed[]> {
  const rows = await s.db
    .selectFrom('entry as e')
    .leftJoin('entry_embedding as m', 'm.entry_id', 'e.id')
    .select(['e.id', 'e.version', 'e.kind', 'e.title', 'e.content', 'e.tags'])
    .where('e.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([eb('m.entry_id', 'is', null), eb('m.model', '<>', model), eb('m.version', '<>', eb.ref('e.version'))]),
    )
    // No order: the scan stops at the first `limit` rows found, whatever the database's size.
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    version: Number(r.version),
    kind: r.kind,
    title: r.title,
    content: r.content,
    tags: parseTags(r.tags),
  }));
}

export async function saveEmbeddings(
  s: StoreContext,
  model: string,
  vectors: { entryId: string; version: number; vector: Float32Array }[],
): Promise<void> {
  if (vectors.length === 0) return;
  const now = new Date().toISOString();
  await s.db
    .insertInto('entry_embedding')
    .values(
      vectors.map((v) => ({
        entry_id: v.entryId,
        version: v.version,
        model,
        vector: Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength),
        created_at: now,
      })),
    )
    .onConflict((oc) =>
      oc.column('entry_id').doUpdateSet((eb) => ({
        version: eb.ref('excluded.version'),
        model: eb.ref('excluded.model'),
        vector: eb.ref('excluded.vector'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute()
    .catch((error: unknown) => {
      // An entry deleted for good meanwhile (its datapack removed) has nothing left to embed.
      if (!/foreign key/i.test(String((error as Error).message))) throw error;
    });
}

export async function loadEmbeddings(
  s: StoreContext,
  model: string,
  entryIds: string[],
): Promise<Map<string, { version: number; vector: Float32Array }>> {
  const found = new Map<string, { version: number; vector: Float32Array }>();
  for (let i = 0; i < entryIds.length; i += 500) {
    const rows = await s.db
      .selectFrom('entry_embedding')
      .select(['entry_id', 'version', 'vector'])
      .where('model', '=', model)
      .where('entry_id', 'in', entryIds.slice(i, i + 500))
      .execute();
    for (const r of rows) {
      const bytes = r.vector;
      found.set(r.entry_id, {
        version: Number(r.version),
        vector: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)),
      });
    }
  }
  return found;
}

export async function embeddingProgress(
  s: StoreContext,
  model: string,
): Promise<{ embedded: number; entries: number }> {
  const [live, done] = await Promise.all([
    s.db
      .selectFrom('entry')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
    s.db
      .selectFrom('entry_embedding as m')
      .innerJoin('entry as e', 'e.id', 'm.entry_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('e.deleted_at', 'is', null)
      .where('m.model', '=', model)
      .whereRef('m.version', '=', 'e.version')
      .executeTakeFirstOrThrow(),
  ]);
  return { embedded: Number(done.n), entries: Number(live.n) };
}
