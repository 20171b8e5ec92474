// `npm start` and `cairn` run bin/cairn.js through its shebang line, which carries the node flags
// V8 only takes at start-up (see the comment there): the served process must really get them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/testing/test-cairn.js';

const BIN = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

test('cairn serve started through the shebang runs node with its flags', {
  skip: process.platform === 'linux' ? undefined : 'reads /proc',
}, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-bin-'));
  const port = await freePort();
  // The same node as this test first on PATH: that is the one `env` finds.
  const env = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    CAIRN_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  const child = spawn(BIN, ['serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      assert.ok(Date.now() < deadline && child.exitCode === null, `cairn serve did not come up: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    assert.ok(argv.includes('--no-concurrent-recompilation'), `node runs as: ${argv.join(' ')}`);
    assert.ok(argv.includes('serve'));
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
