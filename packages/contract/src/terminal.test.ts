import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanName, terminalSafe } from './terminal.js';

const HOSTILE =
  'ok\u001b[2J\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\r\nfake line\u202etxt.exe\u0085\u009b31m\u2066x\u2069';

describe('terminal-safe text', () => {
  test('no control or bidirectional character survives terminalSafe; each is shown as an escape', () => {
    const safe = terminalSafe(HOSTILE);
    const left = [...safe].filter((c) => {
      const n = c.codePointAt(0)!;
      return n < 0x20 || (n >= 0x7f && n <= 0x9f) || (n >= 0x202a && n <= 0x202e) || (n >= 0x2066 && n <= 0x2069);
    });
    assert.deepEqual(left, []);
    assert.equal(
      safe,
      'ok\\x1b[2J\\x1b]8;;https://evil.example\\x07link\\x1b]8;;\\x07\\r\\nfake line\\u202etxt.exe\\x85\\x9b31m\\u2066x\\u2069',
    );
  });

  test("lines: true keeps the program's own newlines and tabs, nothing else", () => {
    assert.equal(terminalSafe('a\n\tb\u001b[Kc\r', { lines: true }), 'a\n\tb\\x1b[Kc\\r');
  });

  test('plain text, accents and emoji pass unchanged', () => {
    const text = 'Zoë’s laptop · 東京 🚀 "quoted" <tag>';
    assert.equal(terminalSafe(text), text);
    assert.equal(cleanName(text), text);
  });

  test('cleanName drops controls and marks, and folds line breaks into one space', () => {
    assert.equal(cleanName(' laptop\u001b[31m\r\n  red\u202e\u0000 '), 'laptop[31m red');
  });
});
