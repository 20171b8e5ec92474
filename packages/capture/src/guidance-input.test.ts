import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editedFiles, readGuidanceInput } from './guidance-input.js';

describe('what a hook hands guidance', () => {
  it('a prompt with its session and folder; nothing for an empty prompt or bad JSON', () => {
    assert.deepEqual(
      readGuidanceInput(
        'claude-code',
        'prompt',
        JSON.stringify({ session_id: 's', cwd: '/r', prompt: 'Add VAT' }),
        {},
        '/x',
      ),
      { sessionId: 's', cwd: '/r', prompt: 'Add VAT' },
    );
    assert.equal(readGuidanceInput('claude-code', 'prompt', JSON.stringify({ prompt: '  ' }), {}, '/x'), null);
    assert.equal(readGuidanceInput('codex', 'prompt', 'not json', {}, '/x'), null);
    assert.deepEqual(readGuidanceInput('kiro-ide', 'prompt', '', { USER_PROMPT: 'hi' }, '/x'), {
      cwd: '/x',
      prompt: 'hi',
    });
    assert.equal(readGuidanceInput('kiro-ide', 'edit', '', { USER_PROMPT: 'hi' }, '/x'), null);
  });

  it("the files a tool wrote: Claude Code's and Gemini's file_path, Kiro's path, a Codex patch's headers", () => {
    assert.deepEqual(editedFiles({ file_path: '/r/a.ts', content: 'x' }), ['/r/a.ts']);
    assert.deepEqual(editedFiles({ file_path: '/r/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] }), ['/r/a.ts']);
    assert.deepEqual(editedFiles({ path: 'b.ts', command: 'create' }), ['b.ts']);
    const patch =
      '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Move to: src/b.ts\n*** Add File: migrations/1.sql\n+SELECT 1;\n*** Delete File: old.ts\n*** End Patch';
    assert.deepEqual(editedFiles({ command: patch }).sort(), ['migrations/1.sql', 'old.ts', 'src/a.ts', 'src/b.ts']);
    assert.deepEqual(editedFiles({ command: ['apply_patch', patch] }).length, 4);
    assert.deepEqual(editedFiles(patch).length, 4);
    assert.deepEqual(editedFiles({ command: 'ls -la' }), []);
    assert.deepEqual(editedFiles(undefined), []);
  });

  it('an edit without files is nothing to ask about', () => {
    assert.equal(
      readGuidanceInput(
        'claude-code',
        'edit',
        JSON.stringify({ session_id: 's', tool_input: { command: 'npm test' } }),
        {},
        '/x',
      ),
      null,
    );
    assert.deepEqual(
      readGuidanceInput(
        'claude-code',
        'edit',
        JSON.stringify({ session_id: 's', cwd: '/r', tool_input: { file_path: '/r/m.sql' } }),
        {},
        '/x',
      ),
      {
        sessionId: 's',
        cwd: '/r',
        files: ['/r/m.sql'],
      },
    );
  });
});
