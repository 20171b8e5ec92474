import { z } from 'zod';
import { searchTerms } from '../store/search-terms.js';
import type { Datapack, Entry, Scope } from '../store/types.js';
import type { Access } from './access.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { parse } from './parse-input.js';
import { jaccard } from './similarity.js';

/** Input of getGuidance. */
export const guidanceInput = z.object({
  task: z.string().trim().min(1).max(2000).describe('The task at hand, in plain words (e.g. "set up CI for the billing service")'),
  limitPerLevel: z.number().int().min(1).max(20).default(5),
});

/** Precedence, strongest first: organization policies, then team standards, then personal preferences. */
export const LEVELS = [
  { scope: 'organization', label: 'Organization policies' },
  { scope: 'team', label: 'Team standards' },
  { scope: 'personal', label: 'Personal preferences' },
] as const satisfies readonly { scope: Scope; label: string }[];

/** One applicable entry, with where it comes from. */
export interface GuidanceItem {
  entry: Entry;
  datapack: { id: string; name: string; scope: Scope };
}

/** Two entries on the same topic at different levels; the stronger level wins. */
export interface GuidanceConflict {
  topic: string;
  prevails: GuidanceItem;
  overridden: GuidanceItem;
  rule: string;
}

/** What applies to a task, level by level, with the conflicts between levels. */
export interface Guidance {
  task: string;
  levels: { scope: Scope; label: string; items: GuidanceItem[] }[];
  conflicts: GuidanceConflict[];
}

/** Entries on the same topic overlap this much in title and tags. */
const TOPIC_OVERLAP = 0.3;

/** Finds what applies to a task in every readable datapack and orders it by precedence. */
export async function getGuidance(deps: DomainDeps, access: Access, raw: z.input<typeof guidanceInput>): Promise<Guidance> {
  const input = parse(guidanceInput, raw);
  const packs = await readableDatapacks(deps, access);
  const byId = new Map<string, Datapack>(packs.map((p) => [p.id, p]));
  const hits = await deps.store.searchEntries({
    datapackIds: packs.map((p) => p.id),
    text: input.task,
    kinds: ['policy', 'standard', 'preference', 'decision', 'note'],
    limit: input.limitPerLevel * LEVELS.length * 3,
  });
  const levels = LEVELS.map(({ scope, label }) => ({
    scope,
    label,
    items: hits
      .filter((h) => byId.get(h.entry.datapackId)?.scope === scope)
      .slice(0, input.limitPerLevel)
      .map(({ entry }) => {
        const d = byId.get(entry.datapackId)!;
        return { entry, datapack: { id: d.id, name: d.name, scope: d.scope } };
      }),
  }));
  return { task: input.task, levels, conflicts: findConflicts(levels) };
}

function findConflicts(levels: Guidance['levels']): GuidanceConflict[] {
  const conflicts: GuidanceConflict[] = [];
  levels.forEach((upper, i) => {
    for (const lower of levels.slice(i + 1)) {
      for (const prevails of upper.items) {
        for (const overridden of lower.items) {
          const topic = sharedTopic(prevails.entry, overridden.entry);
          if (!topic) continue;
          conflicts.push({
            topic,
            prevails,
            overridden,
            rule: `${singular(upper.label)} "${prevails.entry.title}" takes precedence over ${singular(lower.label).toLowerCase()} "${overridden.entry.title}"`,
          });
        }
      }
    }
  });
  return conflicts;
}

/** The shared tags or title terms of two entries when they overlap enough to be about the same thing. */
function sharedTopic(a: Entry, b: Entry): string | undefined {
  const sharedTags = a.tags.filter((t) => b.tags.includes(t));
  if (sharedTags.length > 0) return sharedTags.join(', ');
  const left = new Set(searchTerms(`${a.title} ${a.tags.join(' ')}`));
  const right = new Set(searchTerms(`${b.title} ${b.tags.join(' ')}`));
  // Two titles without terms share no topic (jaccard calls two empty sets the same).
  if (left.size === 0 || right.size === 0) return undefined;
  return jaccard(left, right) >= TOPIC_OVERLAP ? [...left].filter((t) => right.has(t)).join(', ') : undefined;
}

function singular(label: string): string {
  return label.replace(/ies$/, 'y').replace(/s$/, '');
}
