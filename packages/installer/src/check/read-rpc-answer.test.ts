import { deepStrictEqual, equal } from 'node:assert/strict';
import { test } from 'node:test';
import { readRpcAnswer } from './read-rpc-answer.js';

test('reads the JSON-RPC answer from SSE or plain JSON; anything else is none', () => {
  const answer = { jsonrpc: '2.0', id: 1, result: { structuredContent: { you: {}, datapacks: [] } } };
  deepStrictEqual(readRpcAnswer('text/event-stream', `event: message\ndata: ${JSON.stringify(answer)}\n\n`), answer);
  deepStrictEqual(
    readRpcAnswer('text/event-stream', `: ping\n\nevent: message\r\ndata: ${JSON.stringify(answer)}\r\n\r\n`),
    answer,
  );
  deepStrictEqual(
    readRpcAnswer(
      'application/json',
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'no' }, id: null }),
    )?.error?.message,
    'no',
  );
  equal(readRpcAnswer('text/html', '<html></html>'), undefined);
  equal(readRpcAnswer('application/json', '{"ok":true}'), undefined);
});
