import type { Kysely } from 'kysely';
import { toApiKey } from './row-mappers.js';
import type { Database } from './schema.js';
import type { StoreContext } from './store-context.js';
import type { ApiKeyRecord, ClientCredential, KeyUsage } from './types.js';

// API keys, the one-time setup codes that mint them, and what clients call themselves with a credential.

export async function insertApiKey(s: StoreContext, r: ApiKeyRecord, keyHash: string): Promise<void> {
  await insertKeyRow(s.db, r, keyHash);
}

async function insertKeyRow(db: Kysely<Database>, r: ApiKeyRecord, keyHash: string): Promise<void> {
  await db
    .insertInto('api_key')
    .values({
      id: r.id,
      user_id: r.userId,
      name: r.name,
      start: r.start,
      last4: r.last4,
      key_hash: keyHash,
      scope: r.scope,
      created_at: r.createdAt,
      expires_at: r.expiresAt,
      revoked_at: r.revokedAt,
      last_used_at: r.lastUsedAt,
      last_used_client: r.lastUsedClient,
    })
    .execute();
}

export async function findApiKeyByHash(s: StoreContext, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await s.hot.apiKeyByHash(keyHash);
  return row && toApiKey(row);
}

export async function getApiKey(s: StoreContext, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await s.db.selectFrom('api_key').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toApiKey(row);
}

export async function listApiKeys(s: StoreContext, userId: string): Promise<ApiKeyRecord[]> {
  const rows = await s.db
    .selectFrom('api_key')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(toApiKey);
}

export async function revokeApiKey(s: StoreContext, id: string, at: string): Promise<boolean> {
  const result = await s.db
    .updateTable('api_key')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function recordKeyUsage(s: StoreContext, usage: KeyUsage[]): Promise<void> {
  if (usage.length === 0) return;
  await s.db.transaction().execute(async (tx) => {
    for (const u of usage) {
      await tx
        .updateTable('api_key')
        .set({ last_used_at: u.at, last_used_client: u.client })
        .where('id', '=', u.id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', u.at)]))
        .execute();
    }
  });
}

export async function rememberClientName(
  s: StoreContext,
  credential: ClientCredential,
  name: string,
  at: string,
): Promise<void> {
  if ('keyId' in credential) {
    await s.db.updateTable('api_key').set({ client_name: name }).where('id', '=', credential.keyId).execute();
    return;
  }
  const { userId, oauthClientId } = credential;
  await s.db
    .insertInto('oauth_client_use')
    .values({ user_id: userId, client_id: oauthClientId, last_used_at: at, last_used_client: name, client_name: name })
    .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ client_name: name }))
    .execute();
}

export async function clientNameOf(s: StoreContext, credential: ClientCredential): Promise<string | undefined> {
  const row =
    'keyId' in credential
      ? await s.db.selectFrom('api_key').select('client_name').where('id', '=', credential.keyId).executeTakeFirst()
      : await s.db
          .selectFrom('oauth_client_use')
          .select('client_name')
          .where('user_id', '=', credential.userId)
          .where('client_id', '=', credential.oauthClientId)
          .executeTakeFirst();
  return row?.client_name ?? undefined;
}

export async function insertSetupCode(
  s: StoreContext,
  c: { codeHash: string; userId: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await s.db
    .insertInto('setup_code')
    .values({
      code_hash: c.codeHash,
      user_id: c.userId,
      created_at: c.createdAt,
      expires_at: c.expiresAt,
      used_at: null,
    })
    .execute();
}

export async function consumeSetupCode(
  s: StoreContext,
  codeHash: string,
  now: string,
  key?: (userId: string) => { record: ApiKeyRecord; keyHash: string },
): Promise<string | undefined> {
  const consume = (db: Kysely<Database>) =>
    db
      .updateTable('setup_code')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
  if (!key) return (await consume(s.db))?.user_id;
  // The code is spent only if its key is stored: a failed insert leaves it usable.
  return s.db.transaction().execute(async (tx) => {
    const row = await consume(tx);
    if (!row) return undefined;
    const minted = key(row.user_id);
    await insertKeyRow(tx, minted.record, minted.keyHash);
    return row.user_id;
  });
}
