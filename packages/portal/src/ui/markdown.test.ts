import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainPreview, renderMarkdown } from './markdown.js';

test('markdown: formatting, lists, code and links render', () => {
  const html = renderMarkdown(
    '**Always** use `pnpm`:\n\n- one\n- two\n\n[docs](https://pnpm.io) and https://example.com',
  );
  assert.match(html, /<strong>Always<\/strong> use <code>pnpm<\/code>/);
  assert.match(html, /<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/);
  assert.match(html, /<a href="https:\/\/pnpm\.io" target="_blank" rel="noopener noreferrer nofollow">docs<\/a>/);
  assert.match(html, /<a href="https:\/\/example\.com" target="_blank"/, 'bare URLs become links');
});

test('markdown: raw HTML stays text and script URLs are refused', () => {
  const html = renderMarkdown(
    '<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[x](javascript:alert(3)) [y](JaVaScRiPt:alert(4)) [z](data:text/html;base64,PHNjcmlwdD4=) <a href="javascript:alert(5)">a</a>',
  );
  assert.doesNotMatch(html, /<script|<img|<a href="javascript|<a href="data:text\/html|href="JaVaScRiPt/i);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'shown as text');
  assert.match(html, /&lt;img src=x onerror=&quot;alert\(2\)&quot;&gt;/);
  assert.match(html, /\[x\]\(javascript:alert\(3\)\)/, 'a refused link stays as its text');
});

test("markdown: an entry's headings nest below the dialog's h2 and never skip a level (axe: heading-order)", () => {
  const levels = (html: string) => [...html.matchAll(/<h(\d)>/g)].map((m) => Number(m[1]));
  assert.deepEqual(levels(renderMarkdown('# Title\n\n#### Deep\n\n## Back\n\n###### Deepest', 2)), [3, 4, 4, 5]);
  assert.deepEqual(levels(renderMarkdown('### Only', 2)), [3]);
  assert.match(renderMarkdown('#### x', 2), /<h3>x<\/h3>/, 'the closing tag follows the new level');
  assert.deepEqual(levels(renderMarkdown('# a\n\n## b', 0)), [1, 2], 'without a base, as written');
});

test('plain previews drop the Markdown marks and cut with an ellipsis', () => {
  assert.equal(
    plainPreview('## Logging\n\n**Always** use `pino`; see [docs](https://getpino.io).\n\n- one\n- two'),
    'Logging Always use pino; see docs. one two',
  );
  assert.equal(plainPreview('<b>raw</b> & text'), '<b>raw</b> & text', 'raw HTML stays text (React escapes it)');
  const long = plainPreview('word '.repeat(100), 20);
  assert.equal(long.length, 20);
  assert.ok(long.endsWith('…'));
});
