import type { ClientId } from '@cairn/clients';

/** What the user asked for, after flag parsing. */
export interface InstallRequest {
  client: ClientId;
  /** Base or MCP URL as given with --url. */
  url?: string;
  apiKey?: string;
  setupCode?: string;
  oauth: boolean;
  serverName: string;
  uninstall: boolean;
  dryRun: boolean;
  yes: boolean;
  /** Connect as the client will after writing (off with --no-check). */
  check: boolean;
}

/** The machine the installer runs on; passed in so tests run against temp homes and never the real one. */
export interface Machine {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  hostname: string;
  /** Lines for the user (stdout). */
  out: (line: string) => void;
  /** Runs a program and returns its exit code and output; used for `claude` and `launchctl`. */
  run: (program: string, args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  /** Full path of a program on PATH, or undefined. */
  which: (program: string) => string | undefined;
  /** Asks for a secret without echoing it; undefined when there is no terminal to ask on. */
  askSecret: (prompt: string) => Promise<string | undefined>;
  /** Asks yes/no; undefined when there is no terminal (treated as yes). */
  confirm: (question: string) => Promise<boolean | undefined>;
  fetch: typeof fetch;
}
