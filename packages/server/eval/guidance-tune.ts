/**
 * Tunes get_guidance's selection on a company file without overfitting to it: the candidates of
 * every task, with their topic signals, are gathered once (as get_guidance gathers them), then each
 * setting (signal weights, how many rules in full, the floors) is scored on the tasks of every
 * fold but the held-out one, and the best settings are shown beside their figures on the held-out
 * fold and on every fold in turn.
 *
 *   npm run eval:guidance-tune -w @cairn/server -- <guidance.json> [--plain] [--no-concerns] [--hold-out 5] [--folds 5]
 */
import { parseArgs } from 'node:util';
import { fitAnswer } from '../src/domain/guidance-answer.js';
import { selectGuidance, type TopicTuning, topicTuningFor } from '../src/domain/guidance-select.js';
import { startTestCairn } from '../src/testing/test-cairn.js';
import { loadCompany, ruleFacts } from './guidance-company.js';
import { askedTask, foldFigures, GATHER_OPTIONS, gatherSettings, gatherTasks, seedCompany } from './guidance-gather.js';
import type { AskedTask, GuidanceFigures } from './guidance-metrics.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: GATHER_OPTIONS,
});
const company = await loadCompany(positionals[0]!);
const { k, held, budget, concerns: withConcerns } = gatherSettings(values);
const cairn = await startTestCairn({ env: { CAIRN_REQUESTS_PER_MINUTE: '1000000' } });
try {
  const { people, ruleOf } = await seedCompany(cairn, company, values.plain);
  const gathered = await gatherTasks(cairn, company, people, { plain: values.plain, concerns: withConcerns });
  const facts = ruleFacts(company);
  const score = (tuning: TopicTuning) => {
    const asked: AskedTask[] = gathered.map(({ task, candidates, wordsOnly }) => {
      const t = wordsOnly ? tuning : { ...tuning, weights: { ...tuning.weights, title: 0 } };
      const answer = fitAnswer(task.task, selectGuidance(candidates, t), budget, cairn.cairn.domain.caches.ruleVectors);
      return askedTask(task, answer, ruleOf);
    });
    return foldFigures(asked, k, held, facts);
  };
  const current = topicTuningFor({ concerns: withConcerns ? ['x'] : [] }, !values.plain);
  const line = (f: GuidanceFigures) => `R ${f.recall} P ${f.precision} V ${f.recallInView}`;
  const now = score(current);
  console.log(
    'current',
    JSON.stringify(current),
    `| all ${line(now.all)} chars max ${now.all.maxChars} | held-out ${line(now.heldOut)}`,
  );
  const rows: { tuning: TopicTuning; r: ReturnType<typeof score> }[] = [];
  for (const concern of withConcerns ? [0, 0.1, 0.2, 0.4] : [0])
    for (const search of [0, 0.15, 0.3, 0.6])
      for (const title of values.plain ? [0, 0.25, 0.5] : [current.weights.title])
        for (const full of values.plain ? [6, 8, 10, 12, 14] : [3, 4, 5, 6, 7, 8])
          for (const relative of [0.2, 0.3, 0.4, 0.5, 0.6]) {
            const tuning: TopicTuning = { ...current, weights: { text: 1, concern, search, title }, full, relative };
            rows.push({ tuning, r: score(tuning) });
          }
  const target = values.plain
    ? { recall: 60, precision: 30 }
    : withConcerns
      ? { recall: 85, precision: 50 }
      : { recall: 65, precision: 30 };
  const f1 = (f: { recall: number; precision: number }) => (2 * f.recall * f.precision) / (f.recall + f.precision || 1);
  const meeting = rows
    .filter((x) => x.r.train.precision >= target.precision)
    .sort((a, b) => b.r.train.recall - a.r.train.recall);
  const show = (label: string, list: typeof rows) => {
    console.log(`\n${label}`);
    for (const { tuning, r } of list.slice(0, 8))
      console.log(
        `${JSON.stringify({ w: tuning.weights, full: tuning.full, rel: tuning.relative })}  train ${line(r.train)} | held-out ${line(r.heldOut)} | all ${line(r.all)} | folds R ${r.folds.map((f) => f.recall).join('/')}`,
      );
  };
  show(`best train recall with train precision >= ${target.precision}`, meeting);
  show(
    'best train F1',
    [...rows].sort((a, b) => f1(b.r.train) - f1(a.r.train)),
  );
} finally {
  await cairn.close();
}
