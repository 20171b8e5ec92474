// The hook commands automatic mode writes, run the way each client runs them (a shell), deliver to a real Cairn.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { type CaptureCairn, startCaptureCairn } from '../../../server/src/testing/capture-cairn.js';
import { tempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

let cairn: CaptureCairn;
before(async () => {
  cairn = await startCaptureCairn();
});
after(() => cairn.close());

function shell(command: string, env: Record<string, string>, stdin: string): Promise<number> {
  return new Promise((resolve) => {
    const child = execFile(
      'sh',
      ['-c', command],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 10_000 },
      (error) => resolve(error ? 1 : 0),
    );
    child.stdin?.end(stdin);
  });
}

test('kiro IDE and CLI hooks and codex hooks, as installed, send the prompt with the key from ~/.cairn/capture.json', async () => {
  const m = tempMachine({ env: { KIRO_HOME: '' } });
  (m.env as Record<string, string>).CODEX_HOME = join(m.home, '.codex');
  try {
    assert.equal(
      await m.install('--client', 'kiro', '--url', cairn.url, '--api-key', cairn.apiKey, '--yes', '--no-check'),
      0,
      m.errors.join('\n'),
    );
    assert.equal(
      await m.install(
        '--client',
        'codex',
        '--url',
        cairn.url,
        '--api-key',
        cairn.apiKey,
        '--yes',
        '--no-check',
        '--auto',
      ),
      0,
      m.errors.join('\n'),
    );
    const ide = JSON.parse(readFileSync(join(m.home, '.kiro', 'hooks', 'cairn-capture-prompt.kiro.hook'), 'utf8')).then
      .command;
    const cli = JSON.parse(readFileSync(join(m.home, '.kiro', 'agents', 'cairn.json'), 'utf8')).hooks
      .userPromptSubmit[0].command;
    const codex = JSON.parse(readFileSync(join(m.home, '.codex', 'hooks.json'), 'utf8')).hooks.UserPromptSubmit[0]
      .hooks[0].command;
    assert.equal(await shell(ide, { HOME: m.home, USER_PROMPT: 'from the kiro ide' }, ''), 0);
    assert.equal(
      await shell(
        cli,
        { HOME: m.home },
        JSON.stringify({ hook_event_name: 'userPromptSubmit', cwd: m.home, prompt: 'from the kiro cli' }),
      ),
      0,
    );
    assert.equal(
      await shell(codex, { HOME: m.home }, JSON.stringify({ session_id: 's1', cwd: m.home, prompt: 'from codex' })),
      0,
    );
    // The file-write hook asks for guidance only: it captures nothing.
    const edit = JSON.parse(readFileSync(join(m.home, '.codex', 'hooks.json'), 'utf8')).hooks.PostToolUse[0].hooks[0]
      .command;
    const patch = {
      session_id: 's1',
      cwd: m.home,
      hook_event_name: 'PostToolUse',
      tool_name: 'apply_patch',
      tool_input: { command: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch' },
    };
    assert.equal(await shell(edit, { HOME: m.home }, JSON.stringify(patch)), 0);
    const stored = (await cairn.turns()).map((t) => [t.client, t.role, t.text]).sort();
    assert.deepEqual(stored, [
      ['codex', 'user', 'from codex'],
      ['kiro-cli', 'user', 'from the kiro cli'],
      ['kiro-ide', 'user', 'from the kiro ide'],
    ]);
  } finally {
    m.cleanup();
  }
});
