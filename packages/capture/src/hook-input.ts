import { CAPTURE_CLIENT_IDS, type CaptureClientId } from '@cairn/contract';

/** The clients whose hooks run the capture script. */
export const CLIENT_IDS = CAPTURE_CLIENT_IDS;
/** One of CLIENT_IDS. */
export type ClientId = CaptureClientId;

/** The hook events: the user submitted a prompt, the agent finished its answer, or it wrote or edited a file (guidance only, nothing captured). */
export const EVENTS = ['prompt', 'stop', 'edit'] as const;
/** One of EVENTS. */
export type CaptureEvent = (typeof EVENTS)[number];

/** The one piece of conversation a hook hands over, before redaction. */
export interface HookText {
  role: 'user' | 'assistant';
  text: string;
  sessionId?: string;
  turnId?: string;
  cwd?: string;
}

/** The text to capture, or why there is none (a reason safe to log, or null when skipping is normal). */
export type HookReading = { ok: true; value: HookText } | { ok: false; reason: string | null };

/** What Gemini CLI's AfterAgent hook gets as the answer when the model answered without text. */
const GEMINI_NO_RESPONSE = '[no response text]';

/** Whether the client passes its hook input on stdin (Kiro IDE uses the environment instead). */
export function readsStdin(client: ClientId): boolean {
  return client !== 'kiro-ide';
}

/**
 * Picks the user prompt or the final assistant response out of a hook's input, and nothing else:
 * whatever other fields a client sends (tool calls, transcripts, reasoning) are never read.
 */
export function readHookInput(
  client: ClientId,
  event: CaptureEvent,
  stdin: string,
  env: NodeJS.ProcessEnv,
  processCwd: string,
): HookReading {
  if (event === 'edit') return { ok: false, reason: null };
  if (client === 'kiro-ide') {
    // agentStop carries no response text; promptSubmit puts the prompt in USER_PROMPT.
    if (event === 'stop') return { ok: false, reason: null };
    return found('user', env.USER_PROMPT, { cwd: processCwd });
  }
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(stdin);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return { ok: false, reason: 'hook input on stdin is not a JSON object' };
    input = parsed as Record<string, unknown>;
  } catch {
    return { ok: false, reason: stdin.trim() ? 'hook input on stdin is not JSON' : 'no hook input on stdin' };
  }
  const context = { sessionId: str(input.session_id), turnId: str(input.turn_id), cwd: str(input.cwd) ?? processCwd };
  if (event === 'prompt') return found('user', input.prompt, context);
  // A Stop hook that fires again because a hook made the agent continue: the response was captured already.
  if (input.stop_hook_active === true) return { ok: false, reason: null };
  if (client === 'gemini-cli') {
    // Gemini's AfterAgent names the final answer `prompt_response`, and says this when the model gave no text.
    return input.prompt_response === GEMINI_NO_RESPONSE
      ? { ok: false, reason: null }
      : found('assistant', input.prompt_response, context);
  }
  return found('assistant', input.last_assistant_message, context);
}

function found(role: HookText['role'], text: unknown, context: Omit<HookText, 'role' | 'text'>): HookReading {
  if (typeof text !== 'string' || !text.trim()) return { ok: false, reason: null };
  return { ok: true, value: { role, text, ...stripUndefined(context) } };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
