/** LoCoMo dialogue turns as Cairn entries, shared by the benchmark's parent and its Cairn child. */
import { readFile } from 'node:fs/promises';

interface LocomoTurn {
  speaker: string;
  text: string;
  blip_caption?: string;
}

/** Every dialogue turn of the LoCoMo file as a conversation entry; read at run time, never copied into the repo. */
export async function loadTurns(path: string) {
  const samples = JSON.parse(await readFile(path, 'utf8')) as { sample_id: string; conversation: Record<string, unknown> }[];
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
