import type { ClientId } from './hook-input.js';

/** What a hook hands over that guidance needs: the prompt (a task) or the files just written, and where. */
export interface GuidanceInput {
  sessionId?: string;
  cwd: string;
  /** The user's prompt, on a prompt event. */
  prompt?: string;
  /** The paths the tool wrote, as the tool named them, on an edit event. */
  files?: string[];
}

/** Most files one edit names that are asked about. */
const MAX_FILES = 20;

/** Reads a hook's input for guidance; null when there is nothing to ask about. Only the fields named here are read. */
export function readGuidanceInput(
  client: ClientId,
  event: 'prompt' | 'edit',
  stdin: string,
  env: NodeJS.ProcessEnv,
  processCwd: string,
): GuidanceInput | null {
  if (client === 'kiro-ide')
    return event === 'prompt' && env.USER_PROMPT?.trim() ? { cwd: processCwd, prompt: env.USER_PROMPT } : null;
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(stdin);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    input = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const base = {
    ...(str(input.session_id) && { sessionId: str(input.session_id) }),
    cwd: str(input.cwd) ?? processCwd,
  };
  if (event === 'prompt') {
    const prompt = str(input.prompt);
    return prompt?.trim() ? { ...base, prompt } : null;
  }
  const files = editedFiles(input.tool_input);
  return files.length ? { ...base, files } : null;
}

/**
 * The files a write or edit tool names: `file_path` (Claude Code's Write, Edit and MultiEdit, Gemini
 * CLI's write_file and replace), `path` (Kiro's fs_write), or the file headers of a patch (Codex's
 * apply_patch: `*** Update File: src/a.ts`).
 */
export function editedFiles(toolInput: unknown): string[] {
  const files: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim() && !files.includes(value.trim())) files.push(value.trim());
  };
  if (typeof toolInput === 'string') patchFiles(toolInput).forEach(add);
  else if (toolInput && typeof toolInput === 'object') {
    const t = toolInput as Record<string, unknown>;
    add(t.file_path);
    add(t.path);
    for (const value of [t.command, t.input, t.patch]) {
      for (const text of Array.isArray(value) ? value : [value])
        if (typeof text === 'string') patchFiles(text).forEach(add);
    }
  }
  return files.slice(0, MAX_FILES);
}

function patchFiles(text: string): string[] {
  return [
    ...text.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm),
    ...text.matchAll(/^\*\*\* Move to: (.+)$/gm),
  ].map((m) => m[1]!.trim());
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}
