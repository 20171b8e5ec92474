import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copyButtonText } from './bits.js';

test("the copy button's accessible name always contains the words it shows (axe: label-content-name-mismatch)", () => {
  for (const label of ['Copy installer command', 'Copy MCP server URL', 'Copy', 'verification prompt']) {
    for (const state of ['idle', 'copied', 'failed'] as const) {
      const { shown, name } = copyButtonText(label, state);
      assert.ok(name.toLowerCase().includes(shown.toLowerCase()), `${label} / ${state}: "${name}" lacks "${shown}"`);
    }
  }
  assert.deepEqual(copyButtonText('Copy installer command', 'copied'), {
    shown: 'Copied',
    name: 'Copied installer command',
  });
  assert.deepEqual(copyButtonText('Copy installer command', 'idle'), { shown: 'Copy', name: 'Copy installer command' });
});
