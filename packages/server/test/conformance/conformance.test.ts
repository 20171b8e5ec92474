import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
// The server under test: swap this one import for the real Cairn server's start function.
import { startCairnUnderTest as startServerUnderTest } from './cairn-under-test.js';
import { startHeaderProxy } from './header-proxy.js';
import { conformanceCliUnavailableReason, runConformanceServerSuite } from './run-conformance.js';

const expectedFailures = JSON.parse(
  readFileSync(new URL('./expected-failures.json', import.meta.url), 'utf8'),
) as Record<string, string>;

test('MCP conformance server suite passes except for expected failures', { timeout: 6 * 60_000 }, async (t) => {
  const unavailable = conformanceCliUnavailableReason();
  if (unavailable) {
    t.skip(`conformance suite cannot run: ${unavailable}`);
    return;
  }
  for (const [name, reason] of Object.entries(expectedFailures)) {
    assert.ok(reason.trim().length > 0, `expected-failures.json: "${name}" needs a specific reason`);
  }

  const server = await startServerUnderTest();
  try {
    const proxy = await startHeaderProxy({ target: server.origin, headers: server.headers });
    try {
      const result = await runConformanceServerSuite({ mcpUrl: `${proxy.url}${server.mcpPath}` });
      t.diagnostic(`passed (${result.passed.length}): ${result.passed.join(', ')}`);
      t.diagnostic(`failed (${result.failed.length}): ${result.failed.map((f) => f.name).join(', ')}`);

      const unexpected = result.failed.filter((f) => !(f.name in expectedFailures));
      const failed = new Set(result.failed.map((f) => f.name));
      const passed = new Set(result.passed);
      const stale = Object.keys(expectedFailures).filter((name) => !failed.has(name));
      const problems: string[] = [];
      if (unexpected.length > 0) {
        problems.push(
          'Unexpected conformance failures (fix the server, or add each to expected-failures.json with a specific reason):',
          ...unexpected.map((f) => `  ${f.name}: ${f.detail}`),
        );
      }
      if (stale.length > 0) {
        problems.push(
          'Stale expected-failures.json entries (they did not fail): remove them:',
          ...stale.map((name) => `  ${name} (${passed.has(name) ? 'now passes' : 'not in the suite'})`),
        );
      }
      if (problems.length > 0) assert.fail(problems.join('\n'));
    } finally {
      await proxy.close();
    }
  } finally {
    await server.close();
  }
});
