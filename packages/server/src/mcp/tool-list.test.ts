import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { READ_ONLY_INSTRUCTIONS } from './instructions.js';
import { TOOLS } from './tool-list.js';

const MCP_DOC = new URL('../../../../docs/mcp.md', import.meta.url);

test("docs/mcp.md's tool table lists every tool Cairn serves, in order, with whether a read-only key may call it", () => {
  const text = readFileSync(MCP_DOC, 'utf8');
  const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (works|refused) \|$/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(
    rows,
    TOOLS.map((t) => [t.name, t.annotations.readOnlyHint === true ? 'works' : 'refused']),
    'update the table under "## Tools" in docs/mcp.md',
  );
});

test('the read-only instructions say which tools work and which are refused, as the tools are annotated', () => {
  const [, works, refused] =
    /read-only Cairn API key: (.*) work; (.*) are refused\./.exec(READ_ONLY_INSTRUCTIONS) ?? [];
  const named = (clause = '') => clause.split(/, | and /);
  assert.deepEqual(
    named(works),
    TOOLS.filter((t) => t.annotations.readOnlyHint === true).map((t) => t.name),
  );
  assert.deepEqual(
    named(refused),
    TOOLS.filter((t) => t.annotations.readOnlyHint !== true).map((t) => t.name),
  );
});
