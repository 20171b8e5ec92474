// The clients of the outage journeys (database-outage.test.ts): writers and a searcher that record what they saw, and the checks on it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { loadConfig } from '../../src/config/load-config.js';
import { openCairn } from '../../src/runtime/open-cairn.js';
import { createTenant } from '../../src/testing/tenants.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What clients saw during a run: acknowledged writes, answers by status, and anything a client must never see. */
export class Traffic {
  readonly acked = new Map<string, string>();
  readonly attempted = new Set<string>();
  readonly statuses = new Map<string, number>();
  readonly violations: string[] = [];
  private running = true;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    private readonly tag: string,
  ) {}

  count(what: string): number {
    return this.statuses.get(what) ?? 0;
  }

  private see(what: string): void {
    this.statuses.set(what, this.count(what) + 1);
  }

  /** Starts `writers` loops posting distinct entries and one loop searching over /mcp with raw JSON-RPC. */
  start(writers: number): void {
    for (let w = 0; w < writers; w++) this.loops.push(this.writeLoop(w));
    this.loops.push(this.searchLoop());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async writeLoop(w: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      // Random words: no two entries are near-duplicates of each other, so each save creates one.
      const content = `${this.tag} w${w} n${i} ${randomBytes(20).toString('hex')} ${randomBytes(20).toString('hex')}`;
      this.attempted.add(content);
      await this.writeUntilAcked(content);
    }
  }

  /** Retries on 503 as a client following Retry-After would (faster, to keep the test short). */
  private async writeUntilAcked(content: string): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.baseUrl}/api/v1/entries`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ title: `Outage note ${content.slice(-8)}`, content }),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        this.violations.push(`write got no answer: ${(error as Error).message}`);
        return;
      }
      const text = await res.text();
      this.see(`write ${res.status}`);
      if (res.status === 201 || res.status === 200) {
        this.acked.set(content, (JSON.parse(text) as { entry: { id: string } }).entry.id);
        return;
      }
      if (res.status !== 503) {
        this.violations.push(`write answered ${res.status}: ${text.slice(0, 300)}`);
        return;
      }
      const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (
        res.headers.get('retry-after') !== '3' ||
        body.error?.code !== 'unavailable' ||
        !/database unreachable.*retry in 3 s/.test(body.error.message ?? '')
      ) {
        this.violations.push(
          `write 503 without Retry-After or the unavailable error: ${res.headers.get('retry-after')} ${text.slice(0, 300)}`,
        );
        return;
      }
      await sleep(150);
    }
    this.violations.push(`write of "${content}" never succeeded`);
  }

  private async searchLoop(): Promise<void> {
    for (let id = 1; this.running; id++) {
      const outcome = await mcpCall(this.baseUrl, this.key, id, 'tools/call', {
        name: 'search',
        arguments: { query: this.tag },
      });
      this.see(`mcp ${outcome.status}`);
      if (outcome.violation) this.violations.push(outcome.violation);
      await sleep(outcome.status === 503 ? 150 : 50);
    }
  }
}

/** One raw JSON-RPC call to /mcp; a violation is anything but a result or a 503 JSON-RPC error with Retry-After. */
export async function mcpCall(
  baseUrl: string,
  key: string,
  id: number,
  method: string,
  params: unknown,
): Promise<{ status: number | 'none'; violation?: string }> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'User-Agent': INSTALLER_USER_AGENT,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { status: 'none', violation: `mcp got no answer: ${(error as Error).message}` };
  }
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .at(-1) ?? '')
    : text;
  let message: {
    id?: unknown;
    result?: { isError?: boolean; content?: unknown };
    error?: { code?: number; message?: string };
  };
  try {
    message = JSON.parse(json);
  } catch {
    return {
      status: res.status,
      violation: `mcp answered ${res.status} with no JSON-RPC message: ${text.slice(0, 300)}`,
    };
  }
  if (res.status === 200 && message.id === id && message.result && !message.result.isError) return { status: 200 };
  if (
    res.status === 503 &&
    message.id === id &&
    message.error?.code === -32053 &&
    res.headers.get('retry-after') === '3' &&
    /database unreachable/.test(message.error.message ?? '')
  ) {
    return { status: 503 };
  }
  return { status: res.status, violation: `mcp answered ${res.status}: ${text.slice(0, 300)}` };
}

/** A user and API key on the database, made in-process before the server starts (as the CLI would). */
export async function provision(databaseUrl: string, dataDir: string): Promise<{ email: string; key: string }> {
  const cairn = await openCairn(
    loadConfig({ DATABASE_URL: databaseUrl, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'silent' }),
  );
  try {
    const { owner } = await createTenant(cairn);
    return { email: owner.email, key: owner.key };
  } finally {
    await cairn.close();
  }
}

/** Every acknowledged write is stored exactly once, under the id it was acknowledged with; no attempt is stored twice. */
export async function assertExactlyOnce(databaseUrl: string, traffic: Traffic): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ content: string; n: number; ids: string[] }>(
      'SELECT content, count(*)::int AS n, array_agg(id) AS ids FROM entry WHERE content = ANY($1::text[]) GROUP BY content',
      [[...traffic.attempted]],
    );
    const stored = new Map(rows.map((r) => [r.content, r]));
    for (const [content, id] of traffic.acked) {
      const row = stored.get(content);
      assert.ok(row, `acknowledged write missing from the database: ${content}`);
      assert.equal(row.n, 1, `acknowledged write stored ${row.n} times: ${content}`);
      assert.deepEqual(row.ids, [id], 'stored under the id the client was given');
    }
    for (const row of rows) assert.equal(row.n, 1, `stored ${row.n} times: ${row.content}`);
  } finally {
    await client.end();
  }
}

export async function getJson(url: string): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
