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
  /** `--auto`: automatic mode (skills, capture hooks) where it is opt-in; kiro has it always. */
  auto: boolean;
  /** `--auto-update`: Claude Code refreshes the marketplace and plugin in the background. */
  autoUpdate: boolean;
  /** `--marketplace`: where the Cairn plugin marketplace is (git URL, owner/repo or folder). */
  marketplace?: string;
}

/** The machine the installer runs on; passed in so tests run against temp homes and never the real one. */
export interface Machine {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  hostname: string;
  /** The working directory a relative path given on the command line is relative to. */
  cwd: string;
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
