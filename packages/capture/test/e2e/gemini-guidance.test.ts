// Issue 37, "Delivered without being asked", for Gemini CLI: the real `gemini -p` (0.61), its
// ~/.gemini set up by the installer's automatic mode (--auto) against a real Cairn, in a git checkout
// whose remote names the project, against a stand-in Gemini API (GOOGLE_GEMINI_BASE_URL) that records
// every request and answers the prompt with a write_file under migrations/. The hooks' guidance reaches
// the model: the "always" and project rules with the prompt, the migrations rule after the write,
// another project's rule never; the prompt and the final answer are captured.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { createTenant, type TestTenant } from '../../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';
import { checkout, MARK, seedRules } from '../guidance-rules.fixture.js';
import { closeServer, json, killTree, live, REPO, runCli, word } from './claude-run.fixture.js';

runFileOnEachBackend();

const GEMINI = clientBin('gemini');
const INSTALLER = join(REPO, 'packages', 'installer', 'dist', 'cairn-mcp-installer.js');
const hasGit = spawnSync('git', ['--version']).status === 0;
const skip = !existsSync(GEMINI)
  ? 'the gemini CLI is not installed (npm test installs it into test-clients/)'
  : !existsSync(INSTALLER)
    ? 'the installer is not built (npm run build -w cairn-mcp-installer)'
    : !hasGit
      ? 'git is not on PATH'
      : false;
/** A prompt holding this word makes the stand-in model write a migration before it answers. */
const WRITE_MIGRATION = 'pleasewritethemigration';
/** A model named on the command line: Gemini's router (a classifier call to a lite model) is skipped. */
const MODEL = 'gemini-2.5-flash';

interface GeminiRequest {
  path: string;
  body: string;
}

/** The stand-in Gemini API: streamGenerateContent answers with a write_file call once, then with text. */
function startFakeGemini(
  migration: string,
): Promise<{ url: string; requests: GeminiRequest[]; close(): Promise<void> }> {
  const requests: GeminiRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({ path, body });
      if (!path.endsWith(':streamGenerateContent') && !path.endsWith(':generateContent')) {
        console.log(`# fake gemini: unknown request ${req.method} ${req.url}`);
        return json(res, 404, { error: { code: 404, message: `fake gemini has no ${path}`, status: 'NOT_FOUND' } });
      }
      const marker = /\bmark[0-9a-f]{10}\b/.exec(body)?.[0] ?? 'no marker';
      const writes = body.includes(WRITE_MIGRATION) && !body.includes('"functionResponse"');
      const part = writes
        ? {
            functionCall: {
              name: 'write_file',
              args: { file_path: migration, content: 'ALTER TABLE invoices ADD COLUMN vat_cents bigint;\n' },
            },
          }
        : { text: `Fake Gemini answer for ${marker}.` };
      const answer = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      };
      if (path.endsWith(':generateContent')) return json(res, 200, answer);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(answer)}\n\n`);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, requests, close: () => closeServer(server) });
    });
  });
}

describe('gemini -p set up by the installer (--auto): guidance delivered by its hooks', { skip }, () => {
  let cairn: TestCairn;
  let tenant: TestTenant;
  let model: Awaited<ReturnType<typeof startFakeGemini>>;
  let tmp: string;
  let repo: string;
  let migration: string;

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'cairn-gemini-guidance-'));
    repo = checkout(join(tmp, 'home', 'work', 'checkout'));
    migration = join(repo, 'migrations', '0042_add_vat.sql');
    cairn = await startTestCairn();
    tenant = await createTenant(cairn.cairn);
    await seedRules(cairn, tenant);
    model = await startFakeGemini(migration);
  });

  after(async () => {
    for (const child of live) killTree(child);
    await Promise.all([model?.close(), cairn?.close()]);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('the first model request holds the always and project rules; the one after write_file holds the migrations rule; prompt and answer are captured', async () => {
    const home = join(tmp, 'home');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const base = {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      GEMINI_CLI_HOME: home,
      TMPDIR: tmp,
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const install = await runCli(
      process.execPath,
      [INSTALLER, '--client', 'gemini-cli', '--url', cairn.baseUrl, '--api-key', tenant.member.key, '--yes', '--auto'],
      base,
      home,
    );
    assert.equal(install.code, 0, `installer: ${install.stdout}\n${install.stderr}`);
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')) as {
      hooks?: Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(settings.hooks ?? {}).sort(), ['AfterAgent', 'AfterTool', 'BeforeAgent']);

    const env = {
      ...base,
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_API_KEY: `fake-gemini-key-${word('k')}`,
      // Headless Gemini refuses an untrusted folder, and runs no hooks in one.
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
    };
    // The API key is picked as the auth method in the settings the user's first run would write.
    const file = join(home, '.gemini', 'settings.json');
    const withAuth = {
      ...JSON.parse(readFileSync(file, 'utf8')),
      security: { auth: { selectedType: 'gemini-api-key' } },
    };
    writeFileSync(file, `${JSON.stringify(withAuth, null, 2)}\n`);

    const marker = word('mark');
    const prompt = `Add VAT to invoices (${marker}); ${WRITE_MIGRATION}.`;
    const cli = await runCli(GEMINI, ['-m', MODEL, '-p', prompt, '--approval-mode', 'yolo'], env, repo);
    const captureLog = existsSync(join(home, '.cairn', 'capture.log'))
      ? readFileSync(join(home, '.cairn', 'capture.log'), 'utf8')
      : '(no capture.log)';
    const explain = `exit ${cli.code} after ${cli.ms} ms\n--- stdout\n${cli.stdout}\n--- stderr\n${cli.stderr}\n--- capture.log\n${captureLog}\n--- model requests\n${model.requests.map((r) => `${r.path} ${r.body.length} bytes`).join('\n')}`;
    console.log(`# gemini -p with guidance hooks: ${cli.ms} ms`);
    assert.equal(cli.code, 0, explain);
    assert.equal(
      existsSync(migration) && readFileSync(migration, 'utf8'),
      'ALTER TABLE invoices ADD COLUMN vat_cents bigint;\n',
      `write_file did not run\n${explain}`,
    );

    const turn = model.requests.filter(
      (r) => r.path.endsWith(`${MODEL}:streamGenerateContent`) && r.body.includes(marker),
    );
    const afterWrite = turn.findIndex((r) => r.body.includes('"functionResponse"'));
    assert.ok(
      turn.length >= 2 && afterWrite > 0,
      `the model was asked with the prompt, then with the tool's result\n${explain}`,
    );
    const first = turn[0]!.body;
    assert.ok(first.includes(MARK.always), `the "always" rule is not in the first request\n${explain}`);
    assert.ok(first.includes(MARK.project), `the project's rule is not in the first request\n${explain}`);
    assert.ok(!first.includes(MARK.migrations), 'the migrations rule came before any migration was written');
    assert.ok(
      turn[afterWrite]!.body.includes(MARK.migrations),
      `the migrations rule is not in the request after the write\n${explain}`,
    );
    assert.equal(
      turn[afterWrite]!.body.split(MARK.always).length - 1,
      first.split(MARK.always).length - 1,
      'the always rule was delivered again after the write',
    );
    for (const r of model.requests) assert.ok(!r.body.includes(MARK.other), "another project's rule reached the model");

    const pack = (await cairn.cairn.store.findDatapacks([{ scope: 'personal', ownerId: tenant.member.id }])).find(
      (d) => d.name === 'Conversations',
    );
    const captured = pack
      ? (await cairn.cairn.store.listEntries(pack.id, { limit: 100, offset: 0 })).map((e) => e.content)
      : [];
    const spooled = existsSync(join(home, '.cairn', 'capture-spool.jsonl'))
      ? readFileSync(join(home, '.cairn', 'capture-spool.jsonl'), 'utf8')
      : '';
    const has = (text: string) => captured.some((c) => c.includes(text)) || spooled.includes(text);
    assert.ok(has(prompt), `the prompt was not captured: ${captured.join(' | ')}\n${explain}`);
    assert.ok(
      has(`Fake Gemini answer for ${marker}.`),
      `the answer was not captured: ${captured.join(' | ')}\n${explain}`,
    );
  });
});
