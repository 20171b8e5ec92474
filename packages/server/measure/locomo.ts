/**
 * Reading a LoCoMo-format file (snap-research/locomo): conversations of dated sessions of turns,
 * each turn with a `dia_id`, and questions whose `evidence` names the turns that hold the answer.
 * The file is read at run time from wherever the caller keeps it; it is never copied into the repo.
 */
import { readFile } from 'node:fs/promises';

/** One dialogue turn as Cairn receives it. */
export interface LocomoTurn {
  diaId: string;
  speaker: string;
  /** The turn's words, with a shared photo's caption appended as LoCoMo's own baselines do. */
  text: string;
  /** speaker_a's turns are sent as the user's prompts, speaker_b's as the agent's responses. */
  role: 'user' | 'assistant';
  session: number;
  /** ISO time of the session the turn belongs to (turns of one session keep their order by seconds). */
  at: string;
}

/** A question with evidence, category 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop. */
export interface LocomoQuestion {
  question: string;
  evidence: string[];
  category: number;
}

export interface LocomoConversation {
  sampleId: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: { question: string; evidence?: string[]; category: number }[];
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "1:56 pm on 8 May, 2023" → a Date in UTC; undefined when the text has another shape. */
export function parseSessionDate(text: string): Date | undefined {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(text.trim());
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) return undefined;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/** Every conversation of the file with its turns in order and its category 1–4 questions that name evidence. */
export async function loadLocomo(path: string): Promise<LocomoConversation[]> {
  const samples = JSON.parse(await readFile(path, 'utf8')) as RawSample[];
  if (!Array.isArray(samples)) throw new Error(`${path} is not a LoCoMo file: expected a list of samples`);
  return samples.map((sample) => {
    const c = sample.conversation;
    const sessions = Object.keys(c)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null && Array.isArray(c[m[0]]))
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns = sessions.flatMap((session) => {
      const start =
        parseSessionDate(String(c[`session_${session}_date_time`] ?? '')) ?? new Date(Date.UTC(2023, 0, session));
      return (c[`session_${session}`] as RawTurn[]).map((t, i) => ({
        diaId: t.dia_id,
        speaker: t.speaker,
        text: `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ''}`,
        role: t.speaker === c.speaker_a ? ('user' as const) : ('assistant' as const),
        session,
        at: new Date(start.getTime() + i * 1000).toISOString(),
      }));
    });
    const questions = sample.qa
      .filter((q) => q.category >= 1 && q.category <= 4 && (q.evidence?.length ?? 0) > 0)
      .map((q) => ({
        question: q.question,
        evidence: [...new Set(q.evidence!.flatMap((e) => e.split(';')).map((e) => e.trim()))],
        category: q.category,
      }));
    return { sampleId: sample.sample_id, turns, questions };
  });
}

// The same file as benchmark input: every turn as an entry to save, every question as a search.

interface RawLocomoTurn {
  speaker: string;
  text: string;
  blip_caption?: string;
}

/** Every dialogue turn of the LoCoMo file as a conversation entry; read at run time, never copied into the repo. */
export async function loadTurns(path: string) {
  const samples = JSON.parse(await readFile(path, 'utf8')) as {
    sample_id: string;
    conversation: Record<string, unknown>;
  }[];
  return samples.flatMap(({ sample_id, conversation }) =>
    Object.entries(conversation)
      .filter((pair): pair is [string, RawLocomoTurn[]] => /^session_\d+$/.test(pair[0]) && Array.isArray(pair[1]))
      .flatMap(([session, turns]) =>
        turns.map((turn) => ({
          kind: 'conversation' as const,
          title: `${turn.speaker}, ${String(conversation[`${session}_date_time`] ?? session)}`,
          content: turn.blip_caption ? `${turn.text} [shares a photo: ${turn.blip_caption}]` : turn.text,
          tags: [sample_id.toLowerCase(), turn.speaker.toLowerCase()],
        })),
      ),
  );
}

/** The questions of categories 1–4 (the ones with evidence turns), in file order. */
export async function loadQuestions(path: string): Promise<string[]> {
  const samples = JSON.parse(await readFile(path, 'utf8')) as { qa: { question: string; category: number }[] }[];
  return samples.flatMap((s) => s.qa.filter((q) => q.category <= 4).map((q) => q.question));
}
