import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { inspectBundle } from '../testing/mcpb-tool.js';
import { tempMachine } from '../testing/temp-machine.js';

test('--client claude-desktop --bundle writes the extension into the current folder and says how to open and remove it', async () => {
  const m = tempMachine();
  assert.equal(await m.install('--client', 'claude-desktop', '--bundle', '--url', 'https://cairn.example.com'), 0);
  const file = join(m.cwd, 'cairn-claude-desktop.mcpb');
  const bundle = await inspectBundle(readFileSync(file));
  assert.match(bundle.validate, /Manifest schema validation passes!/);
  assert.equal(
    (bundle.manifest.server as { mcp_config: { args: string[] } }).mcp_config.args[2],
    'https://cairn.example.com/mcp',
  );
  const said = m.lines.join('\n');
  assert.match(said, new RegExp(`Wrote ${file}`));
  assert.match(said, /double-click/);
  assert.match(said, /Settings > Extensions > Install Extension…/);
  assert.match(said, /Remove: Claude Desktop > Settings > Extensions/);
  assert.deepEqual(readdirSync(m.home), ['cairn-claude-desktop.mcpb'], 'no config file was written, no temp file left');
  m.cleanup();
});

test('--out takes a file path or a folder', async () => {
  const m = tempMachine();
  assert.equal(
    await m.install(
      '--client',
      'claude-desktop',
      '--bundle',
      '--url',
      'https://cairn.example.com',
      '--out',
      'Cairn.mcpb',
    ),
    0,
  );
  assert.ok(existsSync(join(m.cwd, 'Cairn.mcpb')));
  mkdirSync(join(m.cwd, 'downloads'));
  assert.equal(
    await m.install(
      '--client',
      'claude-desktop',
      '--bundle',
      '--url',
      'https://cairn.example.com',
      '--out',
      'downloads',
    ),
    0,
  );
  assert.ok(existsSync(join(m.cwd, 'downloads', 'cairn-claude-desktop.mcpb')));
  m.cleanup();
});

test('--bundle with any other client, with a key, or without --url is refused with what to run instead', async () => {
  const m = tempMachine();
  for (const client of ['cursor', 'claude-code', 'kiro', 'codex']) {
    assert.equal(await m.install('--client', client, '--bundle', '--url', 'https://cairn.example.com'), 2);
    assert.match(
      m.errors.at(-1)!,
      new RegExp(
        `--bundle makes a Claude Desktop extension \\(\\.mcpb\\) and is only for --client claude-desktop\\..*--client ${client} --url`,
      ),
    );
  }
  assert.equal(
    await m.install(
      '--client',
      'claude-desktop',
      '--bundle',
      '--url',
      'https://cairn.example.com',
      '--api-key',
      'cairn_tkn_x',
    ),
    2,
  );
  assert.match(m.errors.at(-1)!, /--bundle takes no --api-key: the extension holds no key/);
  assert.equal(
    await m.install(
      '--client',
      'claude-desktop',
      '--bundle',
      '--url',
      'https://cairn.example.com',
      '--server-name',
      'work',
    ),
    2,
  );
  assert.match(m.errors.at(-1)!, /--bundle takes no --server-name/);
  assert.equal(await m.install('--client', 'claude-desktop', '--bundle', '--url', 'cairn.example.com'), 2);
  assert.match(m.errors.at(-1)!, /has no scheme/);
  assert.equal(await m.install('--client', 'claude-desktop', '--bundle'), 2);
  assert.match(m.errors.at(-1)!, /--bundle needs --url/);
  assert.equal(
    await m.install('--client', 'claude-desktop', '--url', 'https://cairn.example.com', '--out', 'x.mcpb'),
    2,
  );
  assert.match(m.errors.at(-1)!, /--out belongs to --bundle/);
  assert.deepEqual(readdirSync(m.home), [], 'nothing was written');
  m.cleanup();
});

test('a plain http:// address other than localhost is written with a warning: the bridge would refuse it', async () => {
  const m = tempMachine();
  assert.equal(await m.install('--client', 'claude-desktop', '--bundle', '--url', 'http://cairn.lan:7411'), 0);
  assert.match(
    m.lines.at(-1)!,
    /^Warning: the bridge \(mcp-remote\) refuses plain http:\/\/ .* cannot connect to cairn\.lan:7411: give Cairn an https:\/\/ address/,
  );
  const quiet = tempMachine();
  assert.equal(await quiet.install('--client', 'claude-desktop', '--bundle', '--url', 'http://127.0.0.1:7411'), 0);
  assert.ok(!quiet.lines.some((l) => l.startsWith('Warning')));
  m.cleanup();
  quiet.cleanup();
});

test('an existing file at the output path is replaced whole, or left as it was when the write cannot finish', async () => {
  const m = tempMachine();
  const file = join(m.cwd, 'cairn-claude-desktop.mcpb');
  writeFileSync(file, 'an older download that is much longer than nothing '.repeat(500));
  assert.equal(await m.install('--client', 'claude-desktop', '--bundle', '--url', 'https://cairn.example.com'), 0);
  assert.match((await inspectBundle(readFileSync(file))).validate, /passes/);

  writeFileSync(file, 'the previous bundle');
  // The temp file's place is taken, so the new bytes cannot be written beside the target first.
  const blocker = join(m.cwd, `.cairn-claude-desktop.mcpb.${process.pid}.tmp`);
  mkdirSync(blocker);
  assert.equal(await m.install('--client', 'claude-desktop', '--bundle', '--url', 'https://cairn.example.com'), 1);
  assert.match(
    m.errors.at(-1)!,
    /Could not write .*cairn-claude-desktop\.mcpb: .*Nothing there was changed; choose another place with --out PATH/,
  );
  assert.equal(readFileSync(file, 'utf8'), 'the previous bundle');
  assert.ok(existsSync(blocker), 'what was in the way is not ours to delete');
  m.cleanup();
});
