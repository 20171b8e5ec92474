import { redact } from '@cairn/contract/redaction';
import type { CaptureRun } from './capture.js';
import { loadCaptureConfig } from './config.js';
import { givenTo, recordGiven } from './given.js';
import { callGetGuidance, type GuidanceAnswer, type GuidanceRule } from './guidance-call.js';
import { readGuidanceInput } from './guidance-input.js';
import { CLIENT_IDS, type ClientId } from './hook-input.js';
import { logReason } from './log.js';
import { repositoryOf, repositoryPath } from './project.js';

/**
 * How each client takes context from a hook (what it prints on stdout, exit 0):
 * Claude Code and Codex read `hookSpecificOutput.additionalContext` on UserPromptSubmit and
 * PostToolUse, Gemini CLI on BeforeAgent and AfterTool (its plain stdout only reaches the user);
 * Kiro adds a prompt hook's plain stdout to the agent's context and has no such output after a
 * tool. A client or event missing here gets no guidance from the hook.
 */
const DELIVERY: Record<ClientId, Partial<Record<GuidanceEvent, 'json' | 'text'>>> = {
  'claude-code': { prompt: 'json', edit: 'json' },
  codex: { prompt: 'json', edit: 'json' },
  'gemini-cli': { prompt: 'json', edit: 'json' },
  'kiro-cli': { prompt: 'text' },
  'kiro-ide': { prompt: 'text' },
};
const CLAUDE_EVENT_NAMES = { prompt: 'UserPromptSubmit', edit: 'PostToolUse' } as const;
/** The event a JSON answer names, as each client calls the hook it came from. */
const HOOK_EVENT_NAME: Partial<Record<ClientId, Record<GuidanceEvent, string>>> = {
  'claude-code': CLAUDE_EVENT_NAMES,
  codex: CLAUDE_EVENT_NAMES,
  'gemini-cli': { prompt: 'BeforeAgent', edit: 'AfterTool' },
};

/** The events guidance is given at: a prompt, or a file written. */
export type GuidanceEvent = 'prompt' | 'edit';

/** Longest task get_guidance takes. */
const MAX_TASK_CHARS = 2000;

/** What capture's run takes, but its signal means "print nothing" here, and it waits for capture instead of telling it. */
export interface GuidanceRun extends Omit<CaptureRun, 'signal' | 'sent'> {
  /** When it aborts, nothing is printed. */
  signal: AbortSignal;
  /** Settles when capture has sent this hook's turn: Cairn is asked for guidance only then, so it never slows capture down. */
  captured?: Promise<void>;
}

/** Whether this hook invocation may hand guidance to the agent at all. */
export function deliversGuidance(client: string | undefined, event: string | undefined): boolean {
  return (
    (CLIENT_IDS as readonly string[]).includes(client ?? '') && !!DELIVERY[client as ClientId][event as GuidanceEvent]
  );
}

/**
 * Asks Cairn's get_guidance about this prompt or this file and returns what the hook prints for the
 * agent (its client's format), or null: nothing applies, nothing new for this session, or no answer
 * in time. Never throws; logs reasons only, never the prompt or the key.
 */
export async function runGuidance(run: GuidanceRun): Promise<string | null> {
  const context = `${run.client ?? '?'} ${run.event ?? '?'} guidance`;
  try {
    if (!deliversGuidance(run.client, run.event)) return null;
    const client = run.client as ClientId;
    const event = run.event as GuidanceEvent;
    const input = readGuidanceInput(client, event, run.stdin, run.env, run.cwd);
    if (!input) return null;
    const loaded = loadCaptureConfig(run.env, run.paths);
    // Capture logs a missing configuration already.
    if (!loaded.ok) return null;
    const repo = repositoryOf(input.cwd);
    const files =
      event === 'edit'
        ? (input.files ?? []).map((f) => repositoryPath(repo, input.cwd, f)).filter((f): f is string => !!f)
        : [];
    if (event === 'edit' && files.length === 0) return null;
    const task =
      event === 'prompt'
        ? redact(input.prompt ?? '')
            .text.trim()
            .slice(0, MAX_TASK_CHARS)
        : `Change ${files.join(', ')}`.slice(0, MAX_TASK_CHARS);
    if (!task) return null;
    await run.captured;
    if (run.signal.aborted) return null;
    const outcome = await callGetGuidance(
      loaded.config,
      { task, project: repo.project, ...(files.length && { files }) },
      run.signal,
    );
    if (!outcome.ok) {
      logReason(run.paths, context, outcome.reason);
      return null;
    }
    const session = input.sessionId ? `${client} ${input.sessionId}` : undefined;
    const given = session ? givenTo(run.paths, session) : new Set<string>();
    const shown = event === 'prompt' ? promptText(outcome.answer, given) : editText(outcome.answer, given, files);
    if (!shown || run.signal.aborted) return null;
    if (session) recordGiven(run.paths, session, shown.ids, run.now.getTime());
    return DELIVERY[client][event] === 'json'
      ? `${JSON.stringify({ hookSpecificOutput: { hookEventName: HOOK_EVENT_NAME[client]?.[event], additionalContext: shown.text } })}\n`
      : `${shown.text}\n`;
  } catch (error) {
    logReason(run.paths, context, `internal error: ${(error as Error)?.name ?? 'unknown'}`);
    return null;
  }
}

type Shown = { text: string; ids: string[] };

const PROMPT_HEADER =
  "Cairn, your organization's knowledge service, gives these rules for this prompt (get_guidance, called by Cairn's hook). Follow them:";

/**
 * At a prompt: the server's own text when every rule in it is new to this session, else only the
 * new rules in the same line format (the others were given earlier and still hold). Nothing when no
 * rule applies or all were given.
 */
function promptText(answer: GuidanceAnswer, given: ReadonlySet<string>): Shown | null {
  const all = answer.levels.flatMap((l) => l.items);
  const fresh = all.filter((i) => !given.has(i.entry.id));
  if (fresh.length === 0) return null;
  const ids = fresh.map((i) => i.entry.id);
  const earlier = all.length - fresh.length;
  if (earlier === 0) return { text: `${PROMPT_HEADER}\n${answer.text}`, ids };
  const sections = answer.levels
    .map((l) => ({ scope: l.scope, label: l.label, items: l.items.filter((i) => !given.has(i.entry.id)) }))
    .filter((l) => l.items.length)
    .map((l) => `${l.label}:\n${l.items.map((i) => `- ${ruleLine(i, l.scope)}`).join('\n')}`);
  const conflicts = answer.conflicts
    .filter((c) => !given.has(c.prevails.entry.id) || !given.has(c.overridden.entry.id))
    .map((c) => `- ${c.rule} [topic: ${c.topic}]`);
  const pointers = answer.mayAlsoApply
    .filter((p) => !given.has(p.id))
    .map((p) => `- ${p.title} (${p.id})${p.when ? `: ${p.when}` : ''}`);
  const text = [
    PROMPT_HEADER,
    `New for this prompt (${earlier === 1 ? '1 rule given earlier in this session still applies' : `${earlier} rules given earlier in this session still apply`}), strongest first:`,
    ...sections,
    ...(conflicts.length ? ['Conflicts (the first named wins):', ...conflicts] : []),
    ...(answer.omitted ? [answer.omitted.note] : []),
    ...(pointers.length ? ['May also apply (open with get_entry if it does):', ...pointers] : []),
  ].join('\n');
  return { text, ids };
}

/** After a file is written: the rules scoped to it by a file glob that this session has not been given. */
function editText(answer: GuidanceAnswer, given: ReadonlySet<string>, files: readonly string[]): Shown | null {
  const fresh = answer.levels
    .flatMap((l) => l.items)
    .filter((i) => i.reason.startsWith('file:') && !given.has(i.entry.id));
  if (fresh.length === 0) return null;
  const header = `Cairn, your organization's knowledge service: rules for ${files.join(', ')}, which you just changed (get_guidance, called by Cairn's hook). Follow them, strongest first:`;
  const levelOf = new Map(answer.levels.flatMap((l) => l.items.map((i) => [i, l.scope] as const)));
  return {
    text: [header, ...fresh.map((i) => `- ${ruleLine(i, levelOf.get(i))}`)].join('\n'),
    ids: fresh.map((i) => i.entry.id),
  };
}

/** The kind each level's heading already names, as the server's text leaves it out (server domain/guidance-answer.ts). */
const USUAL_KIND: Record<string, string> = { organization: 'policy', team: 'standard', personal: 'preference' };

/** One rule as get_guidance's text shows it: title, reason and content, and its kind where the level's heading does not say it. */
function ruleLine(item: GuidanceRule, scope: string | undefined): string {
  const kind = scope && USUAL_KIND[scope] === item.entry.kind ? '' : `[${item.entry.kind}] `;
  return `${kind}${item.entry.title} [${item.reason}]: ${item.entry.content}`;
}
