// Strings that come from someone else (a key's name, a client's name, a server's error message) reach
// terminals and lists. Control characters in them could clear the screen, move the cursor, write fake
// lines or links (ESC, CSI, OSC 8), and bidirectional marks could reorder what is shown.

/**
 * C0 controls but tab and newline, DEL, C1 controls, the bidirectional marks, embeddings, overrides and
 * isolates, and the line and paragraph separators.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const UNSAFE_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const shown = (c: string) => {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * The text made safe to print: every control and bidirectional character is shown as an escape
 * (`\x1b`, `\u202e`), so it is visible and inert. `lines: true` keeps newlines and tabs (a
 * multi-line message of the program's own); otherwise they are escaped too (one field, one line).
 */
export function terminalSafe(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(options.lines ? UNSAFE : UNSAFE_OR_BREAK, shown);
}

/**
 * A name as it may be stored: control and bidirectional characters removed, any run of whitespace
 * (newlines included) one space, trimmed.
 */
export function cleanName(text: string): string {
  return text
    .replace(UNSAFE_OR_BREAK, (c) =>
      c === '\n' || c === '\r' || c === '\t' || c === '\u2028' || c === '\u2029' ? ' ' : '',
    )
    .replace(/\s+/g, ' ')
    .trim();
}
