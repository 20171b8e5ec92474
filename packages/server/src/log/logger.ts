/** Severity levels, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** A minimal structured logger. Never pass it a key, a token or a prompt body. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Writes one line per event to stderr (or to `sink`, for tests) at or above `level`. */
export function createLogger(
  level: LogLevel,
  sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] < RANK[level]) return;
    sink(
      `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`,
    );
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
