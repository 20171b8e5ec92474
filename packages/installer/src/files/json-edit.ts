import { type Node, type ParseError, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import { ConfigParseError, lineColumn } from './config-error.js';

const BOM = '\uFEFF';
// ParseErrorCode is a const enum, which isolated modules cannot import.
const INVALID_COMMENT_TOKEN = 10;

/** Parses a JSON (or, with `comments`, JSONC) config; throws ConfigParseError naming line and column. */
export function parseJsonConfig(path: string, text: string, comments: boolean): Record<string, unknown> {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  if (body.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(body, errors, {
    disallowComments: !comments,
    allowTrailingComma: comments,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(body, first.offset);
    const problem =
      first.error === INVALID_COMMENT_TOKEN
        ? 'comments are not allowed in this file'
        : humanize(printParseErrorCode(first.error));
    throw new ConfigParseError(path, line, column, problem);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigParseError(path, 1, 1, 'the top level is not a JSON object');
  return value as Record<string, unknown>;
}

/** Where `keyPath` leads through a parsed config: a value that is not an object where one must hold entries. */
export function shapeProblem(path: string, text: string, keyPath: string[]): ConfigParseError | undefined {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const root = body.trim() === '' ? undefined : parseTree(body, [], { allowTrailingComma: true });
  let node = root;
  for (let i = 0; node && i < keyPath.length; i++) {
    if (node.type !== 'object') return notAnObject(path, body, keyPath.slice(0, i), node);
    node = property(node, keyPath[i]!)?.children?.[1];
  }
  return node && node.type !== 'object' ? notAnObject(path, body, keyPath, node) : undefined;
}

/**
 * Sets (or, with `undefined`, removes) the value at `keyPath`, changing only the bytes of that value:
 * every other entry keeps its exact text, comments stay where they are, and the file's own
 * indentation and line ends are used for what is new. Removing what was added restores the bytes.
 */
export function editJson(text: string, keyPath: string[], value: unknown, path = 'the config file'): string {
  const hasBom = text.startsWith(BOM);
  const body = hasBom ? text.slice(1) : text;
  if (body.trim() === '') {
    if (value === undefined) return text;
    return `${JSON.stringify(nest(keyPath, value), null, 2)}\n`;
  }
  const root = parseTree(body, [], { allowTrailingComma: true });
  if (root?.type !== 'object') throw new ConfigParseError(path, 1, 1, 'the top level is not a JSON object');
  const style = detectStyle(body);
  let container = root;
  for (let i = 0; i < keyPath.length; i++) {
    const prop = property(container, keyPath[i]!);
    if (!prop) {
      if (value === undefined) return text;
      return withBom(
        hasBom,
        insertChild(body, container, `${JSON.stringify(keyPath[i])}: `, nest(keyPath.slice(i + 1), value), style),
      );
    }
    const child = prop.children![1]!;
    if (i === keyPath.length - 1) {
      if (value === undefined) return withBom(hasBom, removeChild(body, container, prop));
      return withBom(
        hasBom,
        splice(
          body,
          child.offset,
          child.offset + child.length,
          render(value, body, child, indentOf(body, prop.offset), style),
        ),
      );
    }
    if (child.type !== 'object') throw notAnObject(path, body, keyPath.slice(0, i + 1), child);
    container = child;
  }
  return text;
}

/** Appends `item` to the array at `keyPath` (created when missing), leaving the other elements' bytes alone. */
export function appendToJsonArray(text: string, keyPath: string[], item: unknown, path = 'the config file'): string {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const array = body.trim() === '' ? undefined : nodeAt(body, keyPath);
  if (!array) return editJson(text, keyPath, [item], path);
  if (array.type !== 'array') throw notAnObject(path, body, keyPath, array, 'an array');
  return withBom(text.startsWith(BOM), insertChild(body, array, '', item, detectStyle(body)));
}

/** Removes element `index` of the array at `keyPath`, leaving the other elements' bytes alone. */
export function removeFromJsonArray(text: string, keyPath: string[], index: number): string {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const array = nodeAt(body, keyPath);
  const element = array?.type === 'array' ? array.children?.[index] : undefined;
  if (!array || !element) return text;
  return withBom(text.startsWith(BOM), removeChild(body, array, element));
}

interface Style {
  unit: string;
  eol: string;
  /** `": "` and `", "` in compact text, as the file writes them. */
  spaced: boolean;
}

function detectStyle(text: string): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { unit: indent.startsWith('\t') ? '\t' : indent, eol, spaced: !/"\s*:\S/.test(text) || /":\s/.test(text) };
}

function nodeAt(body: string, keyPath: string[]): Node | undefined {
  let node = parseTree(body, [], { allowTrailingComma: true });
  for (const key of keyPath) node = node?.type === 'object' ? property(node, key)?.children?.[1] : undefined;
  return node;
}

function property(object: Node, key: string): Node | undefined {
  return object.children?.find((p) => p.children?.[0]?.value === key);
}

/** A value's text: multi-line at `indent` in a multi-line file, single-line where it replaces a single-line value. */
function render(value: unknown, body: string, replaced: Node | undefined, indent: string, style: Style): string {
  const oneLine =
    replaced !== undefined &&
    !/[\r\n]/.test(body.slice(replaced.offset, replaced.offset + replaced.length)) &&
    (replaced.type === 'object' || replaced.type === 'array') &&
    (replaced.children?.length ?? 0) > 0;
  if (oneLine) return compact(value, style.spaced);
  return JSON.stringify(value, null, style.unit)
    .split('\n')
    .join(style.eol + indent);
}

function compact(value: unknown, spaced: boolean): string {
  if (!spaced) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => compact(v, spaced)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const inner = Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${compact(v, spaced)}`)
      .join(', ');
    return inner === '' ? '{}' : `{ ${inner} }`;
  }
  return JSON.stringify(value);
}

/** Adds a property (`prefix` is `"key": `) or array element at the end of a container. */
function insertChild(body: string, container: Node, prefix: string, value: unknown, style: Style): string {
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const children = container.children ?? [];
  const baseIndent = indentOf(body, open);
  const last = children.at(-1);
  if (!last) {
    const inner = body.slice(open + 1, close);
    const indent = baseIndent + style.unit;
    if (inner.trim() !== '')
      return splice(body, close, close, `${prefix}${render(value, body, undefined, indent, style)}`);
    return splice(
      body,
      open + 1,
      close,
      `${style.eol}${indent}${prefix}${render(value, body, undefined, indent, style)}${style.eol}${baseIndent}`,
    );
  }
  const after = scanAfter(body, last.offset + last.length);
  if (after.lineBreak === undefined) {
    return splice(
      body,
      last.offset + last.length,
      last.offset + last.length,
      `${style.spaced ? ', ' : ','}${prefix}${compact(value, style.spaced)}`,
    );
  }
  const indent = startsLine(body, last.offset) ? indentOf(body, last.offset) : baseIndent + style.unit;
  const text = `${style.eol}${indent}${prefix}${render(value, body, undefined, indent, style)}${after.comma === undefined ? '' : ','}`;
  // The new child goes after the last one's line, so a comment ending that line stays with it.
  const withChild = splice(body, after.lineBreak, after.lineBreak, text);
  const end = last.offset + last.length;
  return after.comma === undefined ? splice(withChild, end, end, ',') : withChild;
}

/** Takes a property or element out with its separator: the inverse of insertChild. */
function removeChild(body: string, container: Node, child: Node): string {
  const children = container.children ?? [];
  const index = children.indexOf(child);
  const end = child.offset + child.length;
  if (children.length === 1) {
    const open = container.offset;
    const close = container.offset + container.length - 1;
    const rest = body.slice(open + 1, child.offset) + body.slice(end, close);
    if (rest.replace(/,/g, '').trim() === '') return splice(body, open + 1, close, '');
    return splice(
      body,
      child.offset,
      scanAfter(body, end).comma !== undefined ? scanAfter(body, end).comma! + 1 : end,
      '',
    );
  }
  const after = scanAfter(body, end);
  if (index === children.length - 1) {
    const prev = children[index - 1]!;
    const between = scanAfter(body, prev.offset + prev.length);
    if (!startsLine(body, child.offset) || between.comma === undefined)
      return splice(body, prev.offset + prev.length, end, '');
    // A comma after the removed child (trailing-comma style) stays as the previous child's own.
    if (after.comma !== undefined) return splice(body, lineBreakBefore(body, child.offset), after.comma + 1, '');
    const removed = splice(body, lineBreakBefore(body, child.offset), end, '');
    return splice(removed, between.comma, between.comma + 1, '');
  }
  const next = children[index + 1]!;
  if (startsLine(body, child.offset) && startsLine(body, next.offset))
    return splice(body, lineStart(body, child.offset), lineStart(body, next.offset), '');
  return splice(body, child.offset, next.offset, '');
}

/** What follows a value up to the next child or the closing bracket: its comma, and the first line break outside a comment. */
function scanAfter(body: string, from: number): { comma?: number; lineBreak?: number } {
  const out: { comma?: number; lineBreak?: number } = {};
  let i = from;
  while (i < body.length) {
    const c = body[i]!;
    if (c === ',' && out.comma === undefined) out.comma = i;
    else if (c === '\r' || c === '\n') {
      out.lineBreak ??= i;
      return out;
    } else if (c === '/' && body[i + 1] === '/') {
      while (i < body.length && body[i] !== '\n' && body[i] !== '\r') i++;
      continue;
    } else if (c === '/' && body[i + 1] === '*') {
      const close = body.indexOf('*/', i + 2);
      i = close < 0 ? body.length : close + 2;
      continue;
    } else if (c !== ' ' && c !== '\t' && c !== ',') return out;
    i++;
  }
  return out;
}

function lineStart(body: string, offset: number): number {
  const n = body.lastIndexOf('\n', offset - 1);
  return n + 1;
}

function lineBreakBefore(body: string, offset: number): number {
  const start = lineStart(body, offset);
  return start >= 2 && body[start - 2] === '\r' ? start - 2 : start - 1;
}

function startsLine(body: string, offset: number): boolean {
  return /^[ \t]*$/.test(body.slice(lineStart(body, offset), offset)) && lineStart(body, offset) > 0;
}

function indentOf(body: string, offset: number): string {
  return /^[ \t]*/.exec(body.slice(lineStart(body, offset)))![0];
}

function splice(text: string, from: number, to: number, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

function withBom(hasBom: boolean, body: string): string {
  return (hasBom ? BOM : '') + body;
}

function notAnObject(
  path: string,
  body: string,
  keyPath: string[],
  node: Node,
  wanted = 'an object',
): ConfigParseError {
  const { line, column } = lineColumn(body, node.offset);
  const what =
    node.type === 'null'
      ? 'null'
      : node.type === 'array'
        ? 'an array'
        : node.type === 'object'
          ? 'an object'
          : `a ${node.type}`;
  const name = keyPath.length === 0 ? 'the top level' : `"${keyPath.join('.')}"`;
  return new ConfigParseError(path, line, column, `${name} is ${what}, not ${wanted}`);
}

function nest(keyPath: string[], value: unknown): unknown {
  return keyPath.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function humanize(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
