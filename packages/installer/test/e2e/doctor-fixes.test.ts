// Every fix doctor prints works as printed: each problem below is set up against a real
// Cairn, doctor names it, each command its Fix prints is run with only its <…> filled in, and doctor
// then finds nothing. A server that is not a Cairn (a 404, a web page) is a problem, named as such.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { configPath } from '@cairn/clients';
import { createApiKey, revokeApiKey } from '../../../server/src/domain/api-keys.js';
import { createSetupCode } from '../../../server/src/domain/setup-codes.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { startTenantCairn, type TestTenant } from '../../../server/src/testing/tenants.js';
import type { TestCairn } from '../../../server/src/testing/test-cairn.js';
import { main } from '../../src/main.js';
import { inHome, type TempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

let cairn: TestCairn;
let tenant: TestTenant;
let notCairn: Server;
before(async () => {
  ({ server: cairn, tenant } = await startTenantCairn());
  // Answers 404 to every path but /page, which answers a web page: two servers that are not a Cairn.
  notCairn = createServer((req, res) => {
    if (req.url?.startsWith('/page'))
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Intranet</title>');
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
  await new Promise<void>((resolve) => notCairn.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  await new Promise((resolve) => notCairn.close(resolve));
  await cairn.close();
});

const notCairnUrl = (path: string) => `http://127.0.0.1:${(notCairn.address() as AddressInfo).port}${path}`;
const doctor = (m: TempMachine, ...flags: string[]) =>
  main(['doctor', ...flags], m, 'v20.20.2', (line) => m.errors.push(line));
const write = (path: string, text: string, mode = 0o600) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode });
};
const headers = (key: string) => ({ Authorization: `Bearer ${key}`, 'User-Agent': 'cairn-mcp-installer/1.0' });
const cursorConfig = (entries: Record<string, unknown>) => `${JSON.stringify({ mcpServers: entries }, null, 2)}\n`;
const memberKey = async (name: string) => (await createApiKey(cairn.cairn.domain, tenant.member.id, name)).key;

/** The commands in a Fix: an installer run (up to a ": " or the end) or a chmod. */
function fixCommands(lines: string[]): string[] {
  const fixes = lines.flatMap((line) => /\. Fix: (.*)$/.exec(line)?.[1] ?? []);
  return fixes.flatMap((fix) =>
    [...fix.matchAll(/(npx -y \S+ .+?|chmod 600 \S+)(?=: |$| \(doctor --fix)/g)].map((m) => m[1]!),
  );
}

/**
 * Runs one printed command with its placeholders filled in: a chmod as itself, and the installer the
 * real Cairn serves at /install as the installer's own main (what npx would start), in the same home.
 */
async function runPrinted(m: TempMachine, printed: string, fill: Record<string, string> = {}): Promise<void> {
  let command = printed;
  if (command.includes('<code from the portal, Datapacks > Connect>')) {
    const { code } = await createSetupCode(cairn.cairn.domain, tenant.member.id);
    command = command.replace('<code from the portal, Datapacks > Connect>', code);
  }
  for (const [placeholder, value] of Object.entries(fill)) command = command.split(placeholder).join(value);
  assert.doesNotMatch(command, /<[^>]*>/, `every placeholder of "${printed}" is filled in`);
  const [program, ...args] = command.split(' ');
  if (program === 'chmod') {
    execFileSync('chmod', args);
    return;
  }
  assert.equal(program, 'npx');
  assert.deepEqual(
    args.slice(0, 2),
    ['-y', `${cairn.baseUrl}/install/cairn-mcp-installer.tgz`],
    `${printed} runs the installer of the Cairn it fixes`,
  );
  const code = await main([...args.slice(2), '--yes'], m, 'v20.20.2', (line) => m.errors.push(line));
  assert.equal(code, 0, `${command}\n${m.lines.join('\n')}\n${m.errors.join('\n')}`);
}

/** Doctor finds `problem`, every command of its fixes runs, and doctor then finds nothing. */
async function fixedAsPrinted(m: TempMachine, problem: RegExp, fill?: Record<string, string>): Promise<string[]> {
  assert.equal(await doctor(m), 1, m.lines.join('\n'));
  const said = [...m.lines];
  assert.match(said.join('\n'), problem);
  const commands = fixCommands(said);
  assert.ok(commands.length > 0, `a command to run in:\n${said.join('\n')}`);
  for (const command of commands) await runPrinted(m, command, fill);
  m.lines.length = 0;
  assert.equal(await doctor(m), 0, `after ${commands.join(' ; ')}:\n${m.lines.join('\n')}\n${m.errors.join('\n')}`);
  assert.match(m.lines.at(-1)!, /^No problems/);
  return commands;
}

test('a revoked key: the printed setup-code command (with --url) connects the entry again', () =>
  inHome(async (m) => {
    const { key, record } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'to revoke');
    write(configPath('cursor', m), cursorConfig({ cairn: { url: cairn.mcpUrl, headers: headers(key) } }));
    await revokeApiKey(cairn.cairn.domain, record.id, tenant.member.id);
    const [command] = await fixedAsPrinted(m, /"cairn" Cairn refuses the key/);
    assert.match(command!, / --client cursor --url \S+ --setup-code /);
  }));

test('a revoked key under another server name: the fix keeps that name', () =>
  inHome(async (m) => {
    const { key, record } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'to revoke, named');
    write(configPath('cursor', m), cursorConfig({ 'cairn-work': { url: cairn.mcpUrl, headers: headers(key) } }));
    await revokeApiKey(cairn.cairn.domain, record.id, tenant.member.id);
    const [command] = await fixedAsPrinted(m, /"cairn-work" Cairn refuses the key/);
    assert.match(command!, / --server-name cairn-work$/);
  }));

test('an older Codex table whose token variable is unset: the printed command moves a key into the table', () =>
  inHome(async (m) => {
    write(
      configPath('codex', m),
      `[mcp_servers.cairn]\nurl = "${cairn.mcpUrl}"\nbearer_token_env_var = "CAIRN_MCP_TOKEN"\nhttp_headers = { "User-Agent" = "cairn-mcp-installer/1.0" }\n`,
    );
    await fixedAsPrinted(m, /"cairn" reads its key from CAIRN_MCP_TOKEN, which is not set here/);
  }));

test('a config file other users can read: the printed chmod', () =>
  inHome(async (m) => {
    write(
      configPath('cursor', m),
      cursorConfig({ cairn: { url: cairn.mcpUrl, headers: headers(await memberKey('mode')) } }),
      0o644,
    );
    const [command] = await fixedAsPrinted(m, /holds an API key but is mode 0644/);
    assert.match(command!, /^chmod 600 /);
  }));

test('the same entry twice: the printed uninstall removes one and leaves the other working', () =>
  inHome(async (m) => {
    const entry = { url: cairn.mcpUrl, headers: headers(await memberKey('twice')) };
    write(configPath('cursor', m), cursorConfig({ cairn: entry, 'cairn-copy': entry }));
    const [command] = await fixedAsPrinted(m, /"cairn-copy" repeats "cairn"/);
    assert.match(command!, / --uninstall --server-name cairn-copy$/);
  }));

test('an OAuth entry and an API-key entry for one Cairn: the printed uninstall, given the one to drop', () =>
  inHome(async (m) => {
    write(
      configPath('cursor', m),
      cursorConfig({
        cairn: { url: cairn.mcpUrl, headers: headers(await memberKey('both')) },
        'cairn-oauth': { url: cairn.mcpUrl },
      }),
    );
    await fixedAsPrinted(m, /both methods configured/, { '<name>': 'cairn-oauth' });
  }));

for (const [what, path, said] of [
  [
    'answers 404',
    '/mcp',
    /nothing answers MCP at \S+ \(HTTP 404\): this is not a Cairn, or --url is not its address\. Fix: /,
  ],
  ['answers with a web page', '/page/mcp', /\S+ answered HTTP 200 \(text\/html\) but not with MCP JSON-RPC/],
] as const) {
  test(`an entry whose server ${what} is not a Cairn: named so, and the printed install, given the right address, connects it`, () =>
    inHome(async (m) => {
      write(
        configPath('cursor', m),
        cursorConfig({ cairn: { url: notCairnUrl(path), headers: headers(await memberKey(what)) } }),
      );
      const commands = await fixedAsPrinted(
        m,
        new RegExp(`"cairn" points at a server that is not a Cairn: ${said.source}`),
        { '<your Cairn address>': cairn.baseUrl },
      );
      assert.match(
        commands[0]!,
        /^npx -y <your Cairn address>\/install\/cairn-mcp-installer\.tgz --client cursor --url <your Cairn address> --setup-code /,
      );
    }));
}

test('an entry doctor --fix repairs: the printed doctor --fix does it', () =>
  inHome(async (m) => {
    write(
      configPath('cursor', m),
      cursorConfig({
        cairn: { url: cairn.mcpUrl, headers: { Authorization: `Bearer ${await memberKey('no agent')}` } },
      }),
    );
    assert.equal(await doctor(m), 1, m.lines.join('\n'));
    assert.match(
      m.lines.join('\n'),
      /"cairn" no "User-Agent: cairn-mcp-installer\/1\.0" header.*\(doctor --fix does this\)/,
    );
    assert.match(m.lines.at(-1)!, /Run doctor --fix/);
    m.lines.length = 0;
    await doctor(m, '--fix');
    m.lines.length = 0;
    assert.equal(await doctor(m), 0, m.lines.join('\n'));
  }));
