// claude-code automatic mode through the real `claude` CLI from npm: this repository as a local marketplace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { tempMachine } from '../../src/testing/temp-machine.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');
const claude = clientBin('claude');
const BASE = 'https://cairn.example.com';
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';

function listJson(args: string[], env: Record<string, string | undefined>): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    execFile(
      claude,
      [...args, '--json'],
      { env: env as NodeJS.ProcessEnv, cwd: env.HOME, timeout: 60_000 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    );
  });
}

test('claude-code --auto: marketplace added and cairn@cairn installed and enabled; autoUpdate beside the source; re-run adds nothing; uninstall removes both', async () => {
  const m = tempMachine({ programs: { claude } });
  const dir = join(m.home, '.claude');
  (m.env as Record<string, string>).CLAUDE_CONFIG_DIR = dir;
  try {
    const run = () =>
      m.install(
        '--client',
        'claude-code',
        '--url',
        BASE,
        '--api-key',
        KEY,
        '--yes',
        '--auto',
        '--marketplace',
        REPO_ROOT,
        '--auto-update',
      );
    assert.equal(await run(), 0, `${m.lines.join('\n')}\n${m.errors.join('\n')}`);
    const plugins = await listJson(['plugin', 'list'], m.env);
    assert.deepEqual(
      plugins.map((p) => [p.id, p.enabled, p.scope]),
      [['cairn@cairn', true, 'user']],
    );
    const settings = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'));
    assert.deepEqual(settings.extraKnownMarketplaces.cairn, {
      source: { source: 'directory', path: REPO_ROOT },
      autoUpdate: true,
    });
    assert.equal(statSync(join(m.home, '.cairn', 'capture.json')).mode & 0o777, 0o600);
    assert.ok(m.lines.includes(`Ran: claude plugin marketplace add ${REPO_ROOT}`), m.lines.join('\n'));

    const ours = ['settings.json', '.claude.json']
      .map((f) => join(dir, f))
      .concat(join(m.home, '.cairn', 'capture.json'), join(m.home, '.cairn', 'installed.json'));
    const before = ours.map((f) => readFileSync(f, 'utf8'));
    m.lines.length = 0;
    assert.equal(await run(), 0, m.errors.join('\n'));
    assert.deepEqual(
      ours.map((f) => readFileSync(f, 'utf8')),
      before,
      'a second run changes none of these files',
    );
    assert.ok(m.lines.includes('Ran: claude plugin update cairn@cairn'), 're-running updates the plugin');
    assert.deepEqual(
      Object.keys(JSON.parse(readFileSync(join(dir, '.claude.json'), 'utf8')).mcpServers),
      ['cairn'],
      'no duplicate MCP entry',
    );

    assert.equal(await m.install('--client', 'claude-code', '--uninstall'), 0, m.errors.join('\n'));
    assert.deepEqual(await listJson(['plugin', 'list'], m.env), []);
    assert.equal(
      (await listJson(['plugin', 'marketplace', 'list'], m.env)).some((x) => x.name === 'cairn'),
      false,
    );
    assert.equal(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).extraKnownMarketplaces?.cairn, undefined);
    assert.ok(!existsSync(join(m.home, '.cairn', 'capture.json')));
  } finally {
    m.cleanup();
  }
});

test('claude-code --auto leaves a marketplace the user added before in place on uninstall', async () => {
  const m = tempMachine({ programs: { claude } });
  (m.env as Record<string, string>).CLAUDE_CONFIG_DIR = join(m.home, '.claude');
  try {
    assert.equal((await m.run('claude', ['plugin', 'marketplace', 'add', REPO_ROOT])).code, 0);
    assert.equal(
      await m.install('--client', 'claude-code', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
      0,
      m.errors.join('\n'),
    );
    assert.equal(await m.install('--client', 'claude-code', '--uninstall'), 0, m.errors.join('\n'));
    assert.deepEqual(await listJson(['plugin', 'list'], m.env), [], 'the plugin it installed is gone');
    assert.equal(
      (await listJson(['plugin', 'marketplace', 'list'], m.env)).some((x) => x.name === 'cairn'),
      true,
      'the marketplace it did not add stays',
    );
  } finally {
    m.cleanup();
  }
});
