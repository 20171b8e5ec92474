import type { Machine } from '../install/context.js';
import type { PlanOutcome } from './apply-plan.js';
import type { AutomaticPlan } from './plan.js';

/** Tells the user what automatic mode wrote, left alone, and what to do next. */
export function reportOutcome(
  machine: Machine,
  outcome: PlanOutcome,
  plan: Pick<AutomaticPlan, 'notes' | 'skipped'>,
): void {
  const changed = [
    ...outcome.written.map((p) => `wrote ${p}`),
    ...outcome.hooked.map((p) => `added Cairn's entries to ${p}`),
    ...outcome.removed.map((p) => `removed ${p}`),
  ];
  if (changed.length === 0) machine.out(`Automatic mode is already up to date (${outcome.unchanged} files checked).`);
  else machine.out(`Automatic mode:\n${changed.map((line) => `  ${line}`).join('\n')}`);
  for (const line of [...plan.skipped, ...outcome.keptEdited.map((what) => `kept ${what}`)])
    machine.out(`Left alone: ${line}`);
  for (const note of plan.notes) machine.out(note);
}
