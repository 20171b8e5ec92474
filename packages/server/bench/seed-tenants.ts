/**
 * Users for bench:tenants: each with an API key and a personal datapack filled with `perUser`
 * LoCoMo turns through the bulk path (bench/seed-others.ts's rows: no duplicate check, no
 * history), so 200 users of 1,000 entries take seconds, not the hours 200,000 saves would.
 * Each user's turns start at a different place in the file, so their pools differ.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Cairn } from '../src/runtime/open-cairn.js';
import { insertEntryRows, type OtherTurn } from './seed-others.js';

interface TenantModules {
  createUser: typeof import('../src/domain/accounts.js').createUser;
  createApiKey: typeof import('../src/domain/api-keys.js').createApiKey;
  loadAccess: typeof import('../src/domain/access.js').loadAccess;
  listDatapacks: typeof import('../src/domain/datapacks.js').listDatapacks;
}

export async function seedTenants(
  m: TenantModules,
  cairn: Cairn,
  users: number,
  perUser: number,
  turns: OtherTurn[],
  progress: (done: number) => void,
  first = 0,
): Promise<string[]> {
  const keys: string[] = [];
  const at = new Date('2025-06-01T00:00:00Z').getTime();
  for (let u = first; u < first + users; u++) {
    const { user } = await m.createUser(cairn.domain, cairn.auth, {
      email: `tenant-${u}@example.test`,
      password: randomBytes(12).toString('hex'),
      org: `Tenant ${u}`,
      join: false,
      name: `Tenant ${u}`,
    });
    const { key } = await m.createApiKey(cairn.domain, user.id, 'bench key');
    const access = await m.loadAccess(cairn.domain, {
      userId: user.id,
      client: 'cairn-bench',
      via: 'cli',
      scope: 'read-write',
    });
    const personal = (await m.listDatapacks(cairn.domain, access)).find((p) => p.scope === 'personal')!;
    const start = (u * 7919) % turns.length;
    const rows = Array.from({ length: perUser }, (_, i) => {
      const turn = turns[(start + i) % turns.length]!;
      const stamp = new Date(at + (u * perUser + i) * 1000).toISOString();
      return {
        id: `ent_tenant_${u}_${i}`,
        datapack: personal.id,
        owner: user.id,
        title: turn.title,
        content: `${turn.content} (${u}.${i})`,
        stamp,
      };
    });
    await insertEntryRows(cairn.store, rows);
    keys.push(key);
    progress(u - first + 1);
  }
  if (cairn.store.dialect === 'postgres') await sql`ANALYZE entry`.execute(cairn.store.db);
  return keys;
}
