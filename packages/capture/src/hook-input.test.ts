import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHookInput } from './hook-input.js';

const cwd = '/home/dev/fallback';

describe('readHookInput', () => {
  it('Claude Code UserPromptSubmit: the prompt, session and cwd, nothing else', () => {
    const stdin = JSON.stringify({
      session_id: 's-1',
      transcript_path: '/t.jsonl',
      cwd: '/src/billing',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'use pnpm',
    });
    assert.deepEqual(readHookInput('claude-code', 'prompt', stdin, {}, cwd), {
      ok: true,
      value: { role: 'user', text: 'use pnpm', sessionId: 's-1', cwd: '/src/billing' },
    });
  });

  it('Claude Code Stop: the final response; a stop_hook_active re-entry is skipped silently', () => {
    const stop = {
      session_id: 's-1',
      hook_event_name: 'Stop',
      last_assistant_message: 'Done.',
      stop_hook_active: false,
      transcript_path: '/t.jsonl',
    };
    assert.deepEqual(readHookInput('claude-code', 'stop', JSON.stringify(stop), {}, cwd), {
      ok: true,
      value: { role: 'assistant', text: 'Done.', sessionId: 's-1', cwd },
    });
    assert.deepEqual(
      readHookInput('claude-code', 'stop', JSON.stringify({ ...stop, stop_hook_active: true }), {}, cwd),
      { ok: false, reason: null },
    );
  });

  it('Codex: prompt and last_assistant_message, with its turn_id; a null response is nothing to capture', () => {
    const base = {
      session_id: 'c-1',
      turn_id: 't-9',
      cwd: '/w/app',
      model: 'gpt',
      permission_mode: 'default',
      transcript_path: null,
    };
    assert.deepEqual(
      readHookInput(
        'codex',
        'prompt',
        JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi' }),
        {},
        cwd,
      ),
      {
        ok: true,
        value: { role: 'user', text: 'hi', sessionId: 'c-1', turnId: 't-9', cwd: '/w/app' },
      },
    );
    const stop = { ...base, hook_event_name: 'Stop', stop_hook_active: false };
    assert.equal(
      readHookInput('codex', 'stop', JSON.stringify({ ...stop, last_assistant_message: 'ok' }), {}, cwd).ok,
      true,
    );
    assert.deepEqual(
      readHookInput('codex', 'stop', JSON.stringify({ ...stop, last_assistant_message: null }), {}, cwd),
      { ok: false, reason: null },
    );
  });

  it('Gemini CLI: BeforeAgent prompt and AfterAgent prompt_response (as 0.61 sends them); no text or a re-entry is nothing to capture', () => {
    const base = {
      session_id: 'g-1',
      transcript_path: '/g/chat.json',
      cwd: '/g/app',
      timestamp: '2026-12-02T05:00:00.000Z',
    };
    assert.deepEqual(
      readHookInput(
        'gemini-cli',
        'prompt',
        JSON.stringify({ ...base, hook_event_name: 'BeforeAgent', prompt: 'add VAT' }),
        {},
        cwd,
      ),
      {
        ok: true,
        value: { role: 'user', text: 'add VAT', sessionId: 'g-1', cwd: '/g/app' },
      },
    );
    const stop = { ...base, hook_event_name: 'AfterAgent', prompt: 'add VAT', stop_hook_active: false };
    assert.deepEqual(
      readHookInput('gemini-cli', 'stop', JSON.stringify({ ...stop, prompt_response: 'Added.' }), {}, cwd),
      {
        ok: true,
        value: { role: 'assistant', text: 'Added.', sessionId: 'g-1', cwd: '/g/app' },
      },
    );
    assert.deepEqual(
      readHookInput('gemini-cli', 'stop', JSON.stringify({ ...stop, prompt_response: '[no response text]' }), {}, cwd),
      { ok: false, reason: null },
    );
    assert.deepEqual(
      readHookInput(
        'gemini-cli',
        'stop',
        JSON.stringify({ ...stop, prompt_response: 'Added.', stop_hook_active: true }),
        {},
        cwd,
      ),
      { ok: false, reason: null },
    );
  });

  it('Kiro CLI: hook_event_name, cwd and prompt; its stop carries no response today', () => {
    const prompt = { hook_event_name: 'userPromptSubmit', cwd: '/k/site', prompt: 'deploy it' };
    assert.deepEqual(readHookInput('kiro-cli', 'prompt', JSON.stringify(prompt), {}, cwd), {
      ok: true,
      value: { role: 'user', text: 'deploy it', cwd: '/k/site' },
    });
    assert.deepEqual(
      readHookInput('kiro-cli', 'stop', JSON.stringify({ hook_event_name: 'stop', cwd: '/k/site' }), {}, cwd),
      { ok: false, reason: null },
    );
  });

  it('Kiro IDE: USER_PROMPT from the environment, the process cwd; agentStop has no text', () => {
    assert.deepEqual(readHookInput('kiro-ide', 'prompt', '', { USER_PROMPT: 'refactor' }, cwd), {
      ok: true,
      value: { role: 'user', text: 'refactor', cwd },
    });
    assert.deepEqual(readHookInput('kiro-ide', 'stop', '', { USER_PROMPT: 'refactor' }, cwd), {
      ok: false,
      reason: null,
    });
  });

  it('never reads tool calls, tool output or reasoning, whatever fields arrive', () => {
    const stdin = JSON.stringify({
      session_id: 's',
      tool_name: 'Bash',
      tool_input: { command: 'cat .env' },
      tool_response: 'SECRET',
      thinking: 'hmm',
      last_assistant_message: 'final',
    });
    const reading = readHookInput('claude-code', 'stop', stdin, {}, cwd);
    assert.ok(reading.ok);
    assert.deepEqual(Object.keys(reading.value).sort(), ['cwd', 'role', 'sessionId', 'text']);
    assert.equal(reading.value.text, 'final');
    assert.deepEqual(readHookInput('claude-code', 'prompt', stdin, {}, cwd), { ok: false, reason: null });
  });

  it('explains unreadable input, and skips blank text', () => {
    assert.deepEqual(readHookInput('codex', 'prompt', 'not json', {}, cwd), {
      ok: false,
      reason: 'hook input on stdin is not JSON',
    });
    assert.deepEqual(readHookInput('codex', 'prompt', '', {}, cwd), { ok: false, reason: 'no hook input on stdin' });
    assert.deepEqual(readHookInput('codex', 'prompt', '[1]', {}, cwd), {
      ok: false,
      reason: 'hook input on stdin is not a JSON object',
    });
    assert.deepEqual(readHookInput('codex', 'prompt', '{"prompt":"  \\n"}', {}, cwd), { ok: false, reason: null });
  });
});
