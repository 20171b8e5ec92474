import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cimdFailurePage, wantsPage } from './oauth-failure-page.js';

test('what the client_id and the error say is shown as text, never as markup', async () => {
  const id = 'https://vendor.invalid/"><script>alert(1)</script>';
  const page = cimdFailurePage(
    'refused',
    `Client ID Metadata Document refused: ${id} answered HTTP 404`,
    id,
    'https://cairn.example',
  );
  assert.equal(page.status, 400);
  const html = await page.text();
  assert.ok(!html.includes('<script>') && !html.includes('"><'), html);
  assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62; answered HTTP 404/);
  assert.match(html, /could not accept it/);
});

test('too many fetches: 429 with the wait, and no operator step', async () => {
  const page = cimdFailurePage(
    'busy',
    'Too many Client ID Metadata Document fetches from your network; try again in 42 seconds.',
    'https://vendor.invalid/c.json',
    'https://cairn.example',
    '42',
  );
  assert.equal(page.status, 429);
  assert.equal(page.headers.get('retry-after'), '42');
  const html = await page.text();
  assert.match(html, /Try again in 42 seconds/);
  assert.ok(!html.includes('CAIRN_OAUTH_PINNED_CLIENTS'));
});

test('a page for browsers, the JSON error for programs', () => {
  const ask = (accept: string) =>
    wantsPage(new Request('https://cairn.example/api/auth/oauth2/authorize', { headers: { accept } }));
  assert.equal(ask('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
  assert.equal(ask('application/json'), false);
  assert.equal(ask('*/*'), false);
});
