/**
 * How often the near-duplicate check is wrong:
 *  1. the hand-written pairs of test/fixtures/duplicate-pairs.json through similarity(): "same"
 *     pairs it misses, "different" pairs it would refuse; each fold (first and second half of each
 *     list) beside the whole;
 *  2. every distinct LoCoMo dev turn (speaker as title, words as content) saved through the real
 *     save_entry tool of a real Cairn on SQLite: how many are refused as duplicates;
 *  3. then every fifth of those turns saved again with one ordinary edit (a word dropped, or
 *     "really" added), where similarity() calls the edit a near-duplicate of the turn: how many
 *     the check lets through, which is how often its candidates miss the entry repeated.
 *
 *   node --import tsx bench/duplicates.ts [/work/shared/data/locomo-dev.json]
 */
import { readFileSync } from 'node:fs';
import { NEAR_DUPLICATE_THRESHOLD, similarity } from '../src/domain/similarity.js';
import { callTool, connectMcpClient } from '../src/testing/mcp-client.js';
import { createTenant } from '../src/testing/tenants.js';
import { startTestCairn } from '../src/testing/test-cairn.js';

const pairs = JSON.parse(readFileSync(new URL('../test/fixtures/duplicate-pairs.json', import.meta.url), 'utf8')) as {
  same: [string, string][];
  different: [string, string][];
};
const isDuplicate = ([a, b]: [string, string]) => similarity(a, b) >= NEAR_DUPLICATE_THRESHOLD;
const rate = (wrong: number, of: number) => `${wrong}/${of} (${((100 * wrong) / of).toFixed(1)}%)`;
for (const [fold, from, to] of [
  ['fold 1', 0, 50],
  ['fold 2', 50, 100],
  ['all', 0, 100],
] as const) {
  const missed = pairs.same.slice(from, to).filter((p) => !isDuplicate(p)).length;
  const refused = pairs.different.slice(from, to).filter(isDuplicate).length;
  const all = to - from;
  console.log(
    `pairs ${fold}: same knowledge not caught ${rate(missed, all)}; distinct knowledge refused ${rate(refused, all)}; error ${rate(missed + refused, 2 * all)}`,
  );
}

const path = process.argv[2] ?? '/work/shared/data/locomo-dev.json';
const samples = JSON.parse(readFileSync(path, 'utf8')) as {
  sample_id: string;
  conversation: Record<string, unknown>;
}[];
const server = await startTestCairn({ env: { CAIRN_REQUESTS_PER_MINUTE: '1000000' } });
try {
  const tenant = await createTenant(server.cairn);
  const client = await connectMcpClient(server.mcpUrl, tenant.owner.key);
  let total = 0;
  let refused = 0;
  let edits = 0;
  let missed = 0;
  for (const { sample_id, conversation } of samples) {
    const seen = new Set<string>();
    let sampleRefused = 0;
    const datapack = (await callTool(client, 'create_datapack', { name: `LoCoMo ${sample_id}`, scope: 'personal' }))
      .datapack.id as string;
    for (const [session, turns] of Object.entries(conversation)) {
      if (!/^session_\d+$/.test(session) || !Array.isArray(turns)) continue;
      for (const turn of turns as { speaker: string; text: string }[]) {
        const key = `${turn.speaker}\n${turn.text}`;
        if (!turn.text?.trim() || seen.has(key)) continue;
        seen.add(key);
        const saved = await callTool(client, 'save_entry', { datapack, title: turn.speaker, content: turn.text });
        if (saved.status === 'duplicate') sampleRefused++;
      }
    }
    let sampleEdits = 0;
    let sampleMissed = 0;
    for (const [k, key] of [...seen].entries()) {
      if (k % 5 !== 0) continue;
      const [speaker, text] = key.split('\n') as [string, string];
      const words = text.split(' ');
      if (words.length < 4) continue;
      const edited =
        k % 10 === 0
          ? [...words.slice(0, 2), 'really', ...words.slice(2)]
          : words.filter((_, w) => w !== words.length - 2);
      const content = edited.join(' ');
      if (!isDuplicate([`${speaker}\n${text}`, `${speaker}\n${content}`])) continue;
      sampleEdits++;
      const again = await callTool(client, 'save_entry', { datapack, title: speaker, content });
      if (again.status !== 'duplicate') sampleMissed++;
    }
    console.log(
      `LoCoMo ${sample_id}: ${rate(sampleRefused, seen.size)} distinct turns refused; ${rate(sampleMissed, sampleEdits)} near-duplicates let through`,
    );
    total += seen.size;
    refused += sampleRefused;
    edits += sampleEdits;
    missed += sampleMissed;
  }
  console.log(
    `LoCoMo all: ${rate(refused, total)} distinct turns refused; ${rate(missed, edits)} near-duplicates let through`,
  );
  await client.close();
} finally {
  await server.close();
}
