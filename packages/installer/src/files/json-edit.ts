import { type FormattingOptions, type ParseError, applyEdits, modify, parse, printParseErrorCode } from 'jsonc-parser';
import { ConfigParseError, lineColumn } from './config-error.js';

const BOM = '\uFEFF';
// ParseErrorCode is a const enum, which isolated modules cannot import.
const INVALID_COMMENT_TOKEN = 10;

/** Parses a JSON (or, with `comments`, JSONC) config; throws ConfigParseError naming line and column. */
export function parseJsonConfig(path: string, text: string, comments: boolean): Record<string, unknown> {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  if (body.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(body, errors, { disallowComments: !comments, allowTrailingComma: comments, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(body, first.offset);
    const problem = first.error === INVALID_COMMENT_TOKEN ? 'comments are not allowed in this file' : humanize(printParseErrorCode(first.error));
    throw new ConfigParseError(path, line, column, problem);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigParseError(path, 1, 1, 'the top level is not a JSON object');
  return value as Record<string, unknown>;
}

/** Sets (or, with `undefined`, removes) the value at `keyPath`, keeping every comment and the file's own indentation and line ends. */
export function editJson(text: string, keyPath: string[], value: unknown): string {
  const hasBom = text.startsWith(BOM);
  const body = hasBom ? text.slice(1) : text;
  if (body.trim() === '') {
    if (value === undefined) return text;
    return `${JSON.stringify(nest(keyPath, value), null, 2)}\n`;
  }
  const edits = modify(body, keyPath, value, { formattingOptions: detectFormatting(body) });
  return (hasBom ? BOM : '') + applyEdits(body, edits);
}

function nest(keyPath: string[], value: unknown): unknown {
  return keyPath.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

function humanize(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
