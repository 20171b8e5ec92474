import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { nextTurn } from './event-loop-turns.js';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test('work waiting for its turn lets the loop poll for I/O between turns, not only after all of them', async () => {
  const order: string[] = [];
  const server = createServer((socket) => socket.on('data', () => order.push('io')));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  await once(client, 'connect');
  await new Promise((r) => setTimeout(r, 20));
  const turns = [1, 2, 3, 4, 5].map(async (n) => {
    await nextTurn();
    if (n === 1) client.write('x'); // arrives while turn 1 still works
    busy(20);
    order.push(`turn ${n}`);
  });
  await Promise.all(turns);
  await new Promise((r) => setTimeout(r, 20));
  client.destroy();
  server.close();
  assert.deepEqual(order, ['turn 1', 'io', 'turn 2', 'turn 3', 'turn 4', 'turn 5']);
});
