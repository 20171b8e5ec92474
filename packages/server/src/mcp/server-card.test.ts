import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog, buildServerCard, CARD_META_KEY, serverCardName } from './server-card.js';

test('the card is named after the host that serves it, reversed', () => {
  assert.equal(serverCardName('https://memory.example.com'), 'com.example.memory/cairn');
  assert.equal(serverCardName('https://example.com:8443/cairn'), 'com.example/cairn');
  assert.equal(serverCardName('http://localhost:7411'), 'localhost/cairn');
  assert.equal(serverCardName('http://127.0.0.1:7411'), '127.0.0.1/cairn');
  assert.match(serverCardName('http://[::1]:7411'), /^[a-zA-Z0-9.-]+\/cairn$/);
});

test('the catalog identifier names the same publisher and server as the card (urn:air:{publisher}:mcp:{name})', () => {
  const [entry] = buildCatalog({ baseUrl: 'https://memory.example.com' }).entries;
  assert.equal(entry!.identifier, 'urn:air:memory.example.com:mcp:cairn');
  assert.equal(entry!.url, 'https://memory.example.com/mcp/server-card');
});

test('the User-Agent is announced as required only when the server requires it', () => {
  const required = (requireUserAgent: boolean) => {
    const card = buildServerCard({ baseUrl: 'https://memory.example.com', requireUserAgent });
    return card._meta[CARD_META_KEY].authentication[0]!.requiredHeaders;
  };
  assert.deepEqual(required(true), { 'User-Agent': 'cairn-mcp-installer/1.0' });
  assert.deepEqual(required(false), {});
});
