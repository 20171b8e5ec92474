/**
 * Tunes get_guidance's topic thresholds on a company file without overfitting to it: the
 * candidates of every task are gathered once (as get_guidance gathers them), then each setting of
 * the thresholds is scored on the tasks of every fold but the held-out one, and the best settings
 * are shown beside their figures on the held-out fold.
 *
 *   node --import tsx eval/guidance-tune.ts <guidance.json> [--plain] [--hold-out 5] [--folds 5]
 */
import { parseArgs } from 'node:util';
import { loadAccess } from '../src/domain/access.js';
import { readableDatapacks } from '../src/domain/datapacks.js';
import { DEFAULT_MAX_CHARS, fitAnswer, guidanceCandidates, guidanceText, topicText } from '../src/domain/guidance.js';
import { type GuidanceCandidate, selectGuidance, type TopicTuning, topicTuningFor } from '../src/domain/guidance-select.js';
import { connectMcpClient } from '../src/testing/mcp-client.js';
import { startTestCairn } from '../src/testing/test-cairn.js';
import { buildCompany, type Company, loadCompany, type People, ruleFacts, saveRules } from './guidance-company.js';
import { type AskedTask, folds, guidanceFigures } from './guidance-metrics.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    plain: { type: 'boolean', default: false },
    'hold-out': { type: 'string', default: '5' },
    folds: { type: 'string', default: '5' },
    budget: { type: 'string', default: String(DEFAULT_MAX_CHARS) },
  },
});
const company = await loadCompany(positionals[0]!);
const k = Number(values.folds);
const held = Number(values['hold-out']) - 1;
const budget = Number(values.budget);
const cairn = await startTestCairn({ env: { CAIRN_REQUESTS_PER_MINUTE: '1000000' } });
try {
  const people = await buildCompany(cairn, company);
  const admin = await connectMcpClient(cairn.mcpUrl, people.adminKey);
  const { idOf } = await saveRules(cairn, company, people, admin, !values.plain);
  await admin.close();
  const ruleOf = new Map([...idOf].map(([rule, id]) => [id, rule]));
  const gathered: { task: (typeof company.tasks)[number]; candidates: GuidanceCandidate[] }[] = [];
  for (const task of company.tasks) {
    const access = await loadAccess(cairn.cairn.domain, { userId: people.userIds.get(task.user)!, client: null, via: 'cli', scope: 'read' });
    const context = values.plain ? {} : { files: task.files, project: task.project || undefined };
    gathered.push({ task, candidates: await guidanceCandidates(cairn.cairn.domain, access, { task: task.task, ...context }) });
  }
  const facts = ruleFacts(company);
  await rankingDepth(company, people, idOf, !values.plain);
  if (process.env.GUIDANCE_TIME) {
    const { findConflicts } = await import('../src/domain/guidance-conflicts.js');
    const t = { candidates: 0, annotated: 0, search: 0, conflicts: 0 };
    for (let round = 0; round < 3; round++)
      for (const { task, candidates } of gathered) {
        const access = await loadAccess(cairn.cairn.domain, { userId: people.userIds.get(task.user)!, client: null, via: 'cli', scope: 'read' });
        let t0 = performance.now();
        await guidanceCandidates(cairn.cairn.domain, access, { task: task.task, files: task.files, project: task.project || undefined });
        t.candidates += performance.now() - t0;
        t0 = performance.now();
        await cairn.cairn.store.annotatedEntries(candidates.map((c) => c.datapack.id));
        t.annotated += performance.now() - t0;
        t0 = performance.now();
        await cairn.cairn.store.searchEntries({ datapackIds: [...new Set(candidates.map((c) => c.datapack.id))], text: task.task, limit: 40 });
        t.search += performance.now() - t0;
        t0 = performance.now();
        findConflicts(selectGuidance(candidates));
        t.conflicts += performance.now() - t0;
      }
    console.log(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round((v / (3 * gathered.length)) * 100) / 100])));
  }
  if (process.env.GUIDANCE_DUMP) {
    const { writeFileSync } = await import('node:fs');
    const { textVector, cosine } = await import('../src/search/word-vectors.js');
    const { words } = await import('../src/search/search-ranking.js');
    const cos = (a: string, b: string) => {
      const x = textVector(words(a));
      const y = textVector(words(b));
      return x && y ? cosine(x, y) : 0;
    };
    const vec = (w: string) => textVector([w]);
    const soft = (q: string, d: string) => {
      const qs = words(q)
        .map(vec)
        .filter((v) => v) as Float32Array[];
      const ds = words(d)
        .map(vec)
        .filter((v) => v) as Float32Array[];
      if (!qs.length || !ds.length) return 0;
      let sum = 0;
      for (const x of qs) sum += Math.max(...ds.map((y) => cosine(x, y)));
      return sum / qs.length;
    };
    const dump = gathered.map(({ task, candidates }) => ({
      task: task.id,
      text: task.task,
      applies: task.applies,
      candidates: candidates.map((c) => ({
        rule: ruleOf.get(c.entry.id),
        score: c.score,
        level: c.datapack.scope,
        kind: c.entry.kind,
        always: !!c.entry.applies?.always,
        context: c.context ?? null,
        scoped: !!(c.entry.applies?.files.length || c.entry.applies?.projects.length),
        chars: c.entry.content.length + c.entry.title.length,
        titleCos: cos(task.task, `${c.entry.title} ${c.entry.tags.join(' ')}`),
        wholeCos: cos(task.task, `${c.entry.title} ${c.entry.tags.join(' ')} ${c.entry.content}`),
        soft: soft(task.task, `${c.entry.title} ${c.entry.tags.join(' ')}`),
        softAll: soft(task.task, `${c.entry.title} ${c.entry.tags.join(' ')} ${c.entry.content}`),
      })),
    }));
    writeFileSync(process.env.GUIDANCE_DUMP, JSON.stringify(dump));
  }
  const score = (tuning: TopicTuning) => {
    const asked: AskedTask[] = gathered.map(({ task, candidates }) => {
      const answer = fitAnswer(task.task, selectGuidance(candidates, tuning), budget);
      const kept = answer.levels.flatMap((l) => l.items);
      return { id: task.id, applies: task.applies, returned: kept.map((i) => ruleOf.get(i.entry.id)!), chars: guidanceText(answer).length, ms: 0 };
    });
    const parts = folds(asked, k);
    return { train: guidanceFigures(parts.filter((_, i) => i !== held).flat(), facts), heldOut: guidanceFigures(parts[held]!, facts), all: guidanceFigures(asked, facts) };
  };
  // Ceiling: every candidate.
  const everything = score({ relative: 0, absolute: 0, max: 1000, scopedRelative: 0, scopedAbsolute: 0, levelRelative: 1, titleWeight: 0 });
  console.log(`ceiling (every candidate, budget ${budget}): recall ${everything.all.recall}, precision ${everything.all.precision}`);
  const current = topicTuningFor({}, !values.plain);
  const now = score(current);
  console.log('current', JSON.stringify(current), `all ${JSON.stringify(now.all)}`, `held-out R ${now.heldOut.recall} P ${now.heldOut.precision}`);
  const rows: { tuning: TopicTuning; r: ReturnType<typeof score> }[] = [];
  for (const relative of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    for (const absolute of [0.2, 0.4, 0.6])
      for (const max of [3, 4, 5, 6, 8, 10, 12, 15])
        for (const scopedRelative of [0.9])
          for (const levelRelative of [0, 0.2, 0.4, 0.6, 1.01]) {
            const tuning = { relative, absolute, max, scopedRelative, scopedAbsolute: current.scopedAbsolute, levelRelative, titleWeight: current.titleWeight };
            rows.push({ tuning, r: score(tuning) });
          }
  const target = values.plain ? { recall: 75, precision: 35 } : { recall: 85, precision: 50 };
  // Best by train recall among settings meeting the precision target on train, then the best F1.
  const f1 = (f: { recall: number; precision: number }) => (2 * f.recall * f.precision) / (f.recall + f.precision || 1);
  const meeting = rows.filter((x) => x.r.train.precision >= target.precision).sort((a, b) => b.r.train.recall - a.r.train.recall);
  const byF1 = [...rows].sort((a, b) => f1(b.r.train) - f1(a.r.train));
  const show = (label: string, list: typeof rows) => {
    console.log(`\n${label}`);
    for (const { tuning, r } of list.slice(0, 8))
      console.log(
        `${JSON.stringify(tuning)}  train R ${r.train.recall} P ${r.train.precision} rules ${r.train.medianRules} | held-out R ${r.heldOut.recall} P ${r.heldOut.precision} | all R ${r.all.recall} P ${r.all.precision}`,
      );
  };
  show(`best train recall with train precision >= ${target.precision}`, meeting);
  show('best train F1', byF1);
  const floor = Number(process.env.RECALL_FLOOR ?? 0);
  if (floor)
    show(
      `best train precision with train recall >= ${floor}`,
      rows.filter((x) => x.r.train.recall >= floor).sort((a, b) => b.r.train.precision - a.r.train.precision),
    );
} finally {
  await cairn.close();
}

/**
 * How deep in search's ranking the applicable rules lie that only their topic can bring (with
 * annotations, those neither "always" nor scoped): over every rule each task's person can read, ranked as get_guidance asks search, the
 * share of those pairs within the first 3, 5, 8, 12 and 20. Selection can only keep what ranks
 * near the top, so this bounds topic recall at a given number of rules returned.
 */
async function rankingDepth(company: Company, people: People, idOf: Map<string, string>, annotated: boolean): Promise<void> {
  const depths = [3, 5, 8, 12, 20];
  const found = depths.map(() => 0);
  let pairs = 0;
  const byId = new Map(company.entries.map((e) => [e.id, e]));
  const ruleOf = new Map([...idOf].map(([rule, id]) => [id, rule]));
  for (const task of company.tasks) {
    const topic = task.applies.filter((id) => {
      const a = byId.get(id)?.applies;
      return !annotated || !(a?.always || a?.files?.length || a?.projects?.length);
    });
    if (!topic.length) continue;
    const access = await loadAccess(cairn.cairn.domain, { userId: people.userIds.get(task.user)!, client: null, via: 'cli', scope: 'read' });
    const datapackIds = (await readableDatapacks(cairn.cairn.domain, access)).map((p) => p.id);
    const text = topicText(annotated ? { task: task.task, files: task.files, project: task.project || undefined } : { task: task.task });
    const hits = await cairn.cairn.store.searchEntries({ datapackIds, text, limit: 1000 });
    const rank = new Map(hits.map((h, i) => [ruleOf.get(h.entry.id), i]));
    pairs += topic.length;
    for (const id of topic) for (const [i, d] of depths.entries()) if ((rank.get(id) ?? Number.POSITIVE_INFINITY) < d) found[i]!++;
  }
  const share = depths.map((d, i) => `top ${d}: ${Math.round((found[i]! / pairs) * 1000) / 10}%`).join(', ');
  const which = annotated ? 'applicable rules that are neither "always" nor scoped' : 'applicable rules';
  console.log(`ranking depth (${pairs} ${which}; every rule each person can read, ranked by search): ${share}`);
}
