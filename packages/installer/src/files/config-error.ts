/** A user-facing failure: the message says what happened and what to do; `exitCode` is what the CLI exits with. */
export class InstallerError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'InstallerError';
  }
}

/** A config file that does not parse; it has been left untouched. */
export class ConfigParseError extends InstallerError {
  constructor(
    readonly path: string,
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(
      `${path}:${line}:${column}: ${problem}. The file was left untouched; fix it (or move it away) and run the installer again.`,
    );
    this.name = 'ConfigParseError';
  }
}

/** A config file that parses but holds something else where the entries must be (e.g. `"mcpServers": "oops"`); left untouched too. */
export class ConfigShapeError extends ConfigParseError {}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}
