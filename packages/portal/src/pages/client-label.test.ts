import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientLabel } from './client-label.js';

test("a client's label: a long client name is cut, the key's name after it never", () => {
  const key = 'intern-laptop-with-a-long-name-0123456789-abcdefghij-0123456789';
  const label = clientLabel(`${'A'.repeat(80)} · key “${key}”`)!;
  assert.ok(label.endsWith(` · key “${key}”`), label);
  assert.ok(label.length < 80 + key.length, label);
  assert.equal(clientLabel('Cursor 1.7.2 · key “laptop”'), 'Cursor 1.7.2 · key “laptop”');
  assert.equal(clientLabel('Mozilla/5.0 (X11)'), 'the portal');
  assert.equal(clientLabel('B'.repeat(70)), `${'B'.repeat(39)}…`);
  assert.equal(clientLabel(null), undefined);
});

test('a known client reads as its product, version kept; an unknown one as reported', () => {
  assert.equal(clientLabel('codex-mcp-client 0.61.0 · key “laptop”'), 'Codex 0.61.0 · key “laptop”');
  assert.equal(clientLabel('gemini-cli-mcp-client 0.61.0'), 'Gemini CLI 0.61.0');
  assert.equal(clientLabel('mcp-test-client 0.0.1'), 'Gemini CLI (mcp list) 0.0.1');
  assert.equal(clientLabel('claude-code 2.1.330'), 'Claude Code 2.1.330');
  assert.equal(clientLabel('my-agent 3.1'), 'my-agent 3.1');
});
