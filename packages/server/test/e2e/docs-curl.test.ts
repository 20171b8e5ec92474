// docs/mcp.md shows one 2026-07-28 call sequence with curl (issue 40). This runs exactly the lines of
// that block, with bash and the real curl, against a real Cairn, and checks what comes back: a doc
// whose headers or bodies drift from what /mcp accepts fails here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const DOC = fileURLToPath(new URL('../../../../docs/mcp.md', import.meta.url));
const HEADING = '## Calling /mcp with curl (protocol 2026-07-28)';

/** The first ```sh block under the heading, as written. */
function documentedCommands(): string {
  const text = readFileSync(DOC, 'utf8');
  const at = text.indexOf(HEADING);
  assert.ok(at >= 0, `docs/mcp.md has the section "${HEADING}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  assert.ok(block, 'the section holds a sh block');
  return block[1]!;
}

let server: TestCairn;
let tenant: TestTenant;
before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
});
after(() => server?.close());

const run = (commands: string, key: string) =>
  promisify(execFile)('bash', ['-euo', 'pipefail', '-c', commands], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', CAIRN_URL: server.baseUrl, CAIRN_KEY: key },
    timeout: 60_000,
  });

test('the documented curl sequence discovers 2026-07-28 and lists the datapacks', async () => {
  const commands = documentedCommands();
  assert.match(commands, /User-Agent: cairn-mcp-installer\/1\.0/);
  assert.match(commands, /MCP-Protocol-Version: 2026-07-28/);
  const { stdout } = await run(commands, tenant.member.key);
  const [discover, listed, ...rest] = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(rest, [], 'one answer per curl call');
  assert.equal(discover.id, 1);
  assert.ok(discover.result.supportedVersions.includes('2026-07-28'), JSON.stringify(discover));
  assert.equal(listed.id, 2);
  assert.equal(listed.result.isError, undefined, JSON.stringify(listed));
  assert.equal(listed.result.structuredContent.you.email, tenant.member.email);
  assert.ok(
    listed.result.structuredContent.datapacks.some((d: { name: string }) => d.name === 'Personal'),
    JSON.stringify(listed.result.structuredContent.datapacks),
  );
});

test('the same lines with a key that is not valid are refused with 401', async () => {
  const commands = documentedCommands().replaceAll("curl -sS -w '\\n'", "curl -sS -o /dev/null -w '%{http_code}\\n'");
  const { stdout } = await run(commands, 'cairn_tkn_notarealkey');
  assert.deepEqual(stdout.trim().split('\n'), ['401', '401']);
});
