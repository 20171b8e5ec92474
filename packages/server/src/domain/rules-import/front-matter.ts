/**
 * The front matter of a rule file: the small part of YAML rule files use (`key: value`, quoted
 * strings, booleans, `[a, b]` and `- item` lists). What it cannot read is reported, not guessed.
 */
export type FrontValue = string | boolean | string[];

export interface FrontMatter {
  fields: Record<string, FrontValue>;
  body: string;
  problems: string[];
}

export function splitFrontMatter(text: string): FrontMatter {
  const normal = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!normal.startsWith('---\n')) return { fields: {}, body: normal, problems: [] };
  const end = normal.indexOf('\n---', 3);
  if (end < 0) return { fields: {}, body: normal, problems: ['its front matter has no closing "---" line'] };
  const head = normal.slice(4, end);
  const body = normal.slice(normal.indexOf('\n', end + 1) + 1 || normal.length);
  const fields: Record<string, FrontValue> = {};
  const problems: string[] = [];
  let list: string[] | undefined;
  for (const line of head.split('\n')) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && list) {
      list.push(unquote(item[1]!.trim()));
      continue;
    }
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) {
      problems.push(`front matter line "${line.slice(0, 60)}" is not "key: value"`);
      list = undefined;
      continue;
    }
    const key = pair[1]!;
    const raw = pair[2]!.trim();
    if (raw === '') {
      list = [];
      fields[key] = list;
      continue;
    }
    list = undefined;
    fields[key] = scalar(raw);
  }
  // A key followed by nothing at all is an empty value, not an empty list.
  for (const [k, v] of Object.entries(fields)) if (Array.isArray(v) && v.length === 0) fields[k] = '';
  return { fields, body, problems };
}

function scalar(raw: string): FrontValue {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw.startsWith('[') && raw.endsWith(']'))
    return raw
      .slice(1, -1)
      .split(',')
      .map((s) => unquote(s.trim()))
      .filter((s) => s !== '');
  return unquote(raw);
}

function unquote(s: string): string {
  if (s.length >= 2 && ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'")))) {
    if (s.startsWith('"')) {
      try {
        return JSON.parse(s) as string;
      } catch {
        return s.slice(1, -1);
      }
    }
    return s.slice(1, -1).replace(/''/g, "'");
  }
  return s;
}

/** A list of globs written as a list or as one comma-separated string. */
export function globList(value: FrontValue | undefined): string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  const items = Array.isArray(value) ? value : value.split(',');
  return items.map((g) => g.trim()).filter((g) => g !== '');
}

export function text(value: FrontValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.trim() || undefined;
}
