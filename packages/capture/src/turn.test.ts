import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { buildTurn, MAX_TURN_TEXT } from './turn.js';

const at = new Date('2026-05-01T10:00:00.000Z');

describe('buildTurn', () => {
  it('redacts every planted secret, from the text and from the id', () => {
    const turn = buildTurn(
      'claude-code',
      'prompt',
      { role: 'user', text: plantedSecretsText, sessionId: 's', cwd: '/src/billing' },
      at,
    );
    const serialized = JSON.stringify(turn);
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!serialized.includes(secret), `${kind} survived`);
    for (const { rule } of PLANTED_SECRETS)
      assert.ok(turn.text.includes(`[redacted:${rule}]`), `no [redacted:${rule}] marker`);
    assert.deepEqual(Object.keys(turn).sort(), ['at', 'client', 'id', 'project', 'role', 'sessionId', 'text']);
    assert.equal(turn.project, 'billing');
    assert.equal(turn.at, at.toISOString());
  });

  it('bounds the text to the endpoint limit', () => {
    const turn = buildTurn('codex', 'stop', { role: 'assistant', text: 'x'.repeat(MAX_TURN_TEXT + 10) }, at);
    assert.equal(turn.text.length, MAX_TURN_TEXT);
  });

  it('gives the same turn the same id (≤128 hex chars) and different turns different ids', () => {
    const input = { role: 'user' as const, text: 'use pnpm', sessionId: 's-1' };
    const a = buildTurn('claude-code', 'prompt', input, at);
    assert.match(a.id, /^[0-9a-f]{64}$/);
    assert.equal(buildTurn('claude-code', 'prompt', input, new Date(at.getTime() + 5000)).id, a.id);
    assert.notEqual(buildTurn('claude-code', 'prompt', { ...input, sessionId: 's-2' }, at).id, a.id);
    assert.notEqual(buildTurn('codex', 'prompt', input, at).id, a.id);
    assert.notEqual(buildTurn('claude-code', 'stop', input, at).id, a.id);
    assert.notEqual(
      buildTurn('codex', 'prompt', { ...input, turnId: 't-2' }, at).id,
      buildTurn('codex', 'prompt', { ...input, turnId: 't-3' }, at).id,
    );
    // Without a session the same words at another time are another turn.
    const noSession = { role: 'user' as const, text: 'continue' };
    assert.notEqual(
      buildTurn('kiro-ide', 'prompt', noSession, at).id,
      buildTurn('kiro-ide', 'prompt', noSession, new Date(at.getTime() + 1)).id,
    );
  });
});
