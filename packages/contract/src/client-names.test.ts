import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CAIRN_OWN_USER_AGENT_PATTERN, clientProductName } from './client-names.js';

describe('clientProductName', () => {
  const cases: [string, string][] = [
    ['claude-code 2.0.1', 'Claude Code 2.0.1'],
    ['claude-code/2.0.1 (external, cli)', 'Claude Code 2.0.1'],
    ['claude-ai 0.1.0', 'Claude Desktop 0.1.0'],
    ['Cursor 1.7.2', 'Cursor 1.7.2'],
    ['Visual Studio Code 1.105.0', 'VS Code 1.105.0'],
    ['github-copilot 1.0', 'GitHub Copilot 1.0'],
    ['codex-mcp-client 0.61.0', 'Codex 0.61.0'],
    ['gemini-cli-mcp-client 0.61.0', 'Gemini CLI 0.61.0'],
    ['mcp-test-client 0.0.1', 'Gemini CLI (mcp list) 0.0.1'],
    ['kiro-cli 1.2.0', 'Kiro CLI 1.2.0'],
    ['Kiro 0.5.0', 'Kiro 0.5.0'],
    ['windsurf-client 1.0.0', 'Windsurf 1.0.0'],
    ['mcp-remote 0.1.29', 'mcp-remote 0.1.29'],
    ['mcp-inspector 0.17.0', 'MCP Inspector 0.17.0'],
    ['inspector-client 0.17.0', 'MCP Inspector 0.17.0'],
    ['claude-code', 'Claude Code'],
  ];
  for (const [reported, shown] of cases)
    test(`${reported} → ${shown}`, () => assert.equal(clientProductName(reported), shown));
  test('an unknown name is shown as reported, version and all', () => {
    assert.equal(clientProductName('my-agent 3.1.4'), 'my-agent 3.1.4');
    assert.equal(clientProductName('node'), 'node');
  });
});

test("Cairn's own User-Agents are recognised, not an agent's", () => {
  assert.ok(CAIRN_OWN_USER_AGENT_PATTERN.test('cairn-capture/1.0'));
  assert.ok(CAIRN_OWN_USER_AGENT_PATTERN.test('cairn-mcp-installer/1.0'));
  assert.ok(!CAIRN_OWN_USER_AGENT_PATTERN.test('claude-code/2.0.1'));
});
