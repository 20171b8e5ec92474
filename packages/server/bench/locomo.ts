/** LoCoMo dialogue turns as Cairn entries and its questions as searches, shared by the benchmarks and their Cairn child. */
import { readFile } from 'node:fs/promises';

interface LocomoTurn {
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
      .filter((pair): pair is [string, LocomoTurn[]] => /^session_\d+$/.test(pair[0]) && Array.isArray(pair[1]))
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
