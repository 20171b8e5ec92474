import { deepStrictEqual, equal, ok, throws } from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'jsonc-parser';
import { appendToJsonArray, editJson, removeFromJsonArray } from './json-edit.js';

const ENTRY = {
  type: 'http',
  url: 'https://cairn.example.com/mcp',
  headers: { Authorization: 'Bearer cairn_tkn_x', 'User-Agent': 'cairn-mcp-installer/1.0' },
};

test('adding an entry leaves the neighbouring entries byte for byte; removing it restores the file', () => {
  const before = '{\n  "mcpServers": {\n    "other": { "command": "x", "args": ["--x"] }\n  }\n}\n';
  const after = editJson(before, ['mcpServers', 'cairn'], ENTRY);
  ok(after.includes('    "other": { "command": "x", "args": ["--x"] },\n'), after);
  deepStrictEqual(JSON.parse(after).mcpServers, { other: { command: 'x', args: ['--x'] }, cairn: ENTRY });
  equal(editJson(after, ['mcpServers', 'cairn'], undefined), before);
});

test("JSONC: a comment ending the last entry's line stays on that line", () => {
  const before =
    '{\n  // my servers\n  "servers": {\n    "other": { "type": "stdio", "command": "x" } // keep me here\n  }\n}\n';
  const after = editJson(before, ['servers', 'cairn'], ENTRY);
  ok(after.includes('    "other": { "type": "stdio", "command": "x" }, // keep me here\n    "cairn": {'), after);
  deepStrictEqual(parse(after).servers.cairn, ENTRY);
  equal(editJson(after, ['servers', 'cairn'], undefined), before);
});

test('round trips: empty object, missing container, compact file, tabs, CRLF, trailing comma, BOM', () => {
  const cases = [
    '{}',
    '{}\n',
    '{\n  "theme": "dark"\n}\n',
    '{"mcpServers": {"a": {"url": "u"}}}',
    '{"mcpServers":{"a":{"url":"u"}}}\n',
    '{\n\t"mcpServers": {\n\t\t"a": { "url": "u" }\n\t}\n}\n',
    '{\r\n  "mcpServers": {\r\n    "a": { "url": "u" }\r\n  }\r\n}\r\n',
    '{\n  "servers": {\n    "a": { "url": "u" },\n  },\n}\n',
    '\uFEFF{\n  "mcpServers": {}\n}\n',
    '{\n  "mcpServers": {\n    "a": 1 /* one */\n    // end\n  }\n}',
  ];
  for (const before of cases) {
    const after = editJson(before, ['mcpServers', 'cairn'], ENTRY);
    deepStrictEqual(parse(after.replace(/^\uFEFF/, '')).mcpServers.cairn, ENTRY, after);
    if (before.includes('\r\n')) ok(!/[^\r]\n/.test(after), 'CRLF kept');
    if (before.includes('\t')) ok(after.includes('\n\t\t"cairn": {\n\t\t\t"type"'), after);
    const removed = editJson(after, ['mcpServers', 'cairn'], undefined);
    if (before.includes('"mcpServers"')) equal(removed, before, `round trip of ${JSON.stringify(before)}`);
    else deepStrictEqual(parse(removed), { ...parse(before), mcpServers: {} });
  }
});

test('replacing an entry changes only its value; the others keep their bytes', () => {
  const before =
    '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "cairn": { "url": "old" },\n    "z": [1,2]\n  }\n}\n';
  const after = editJson(before, ['mcpServers', 'cairn'], { url: 'new', headers: { A: 'b' } });
  equal(
    after,
    '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "cairn": { "url": "new", "headers": { "A": "b" } },\n    "z": [1,2]\n  }\n}\n',
  );
  equal(
    editJson(after, ['mcpServers', 'cairn'], undefined),
    '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "z": [1,2]\n  }\n}\n',
  );
});

test('array items are appended and removed without touching the other items', () => {
  const before = '{\n  "hooks": {\n    "Stop": [\n      { "command": "mine" }\n    ]\n  }\n}\n';
  const after = appendToJsonArray(before, ['hooks', 'Stop'], { command: 'cairn' });
  ok(after.includes('      { "command": "mine" },\n      {\n'), after);
  equal(removeFromJsonArray(after, ['hooks', 'Stop'], 1), before);
});

test('a container that is not an object is a clear error naming the key, not a crash', () => {
  throws(
    () => editJson('{"mcpServers": "oops"}', ['mcpServers', 'cairn'], ENTRY, '/x/mcp.json'),
    /\/x\/mcp\.json:1:16: "mcpServers" is a string, not an object/,
  );
});
