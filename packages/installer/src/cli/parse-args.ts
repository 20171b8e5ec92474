import { parseArgs } from 'node:util';
import { AUTOMATIC, CLIENT_IDS, CLIENTS, type ClientId, DEFAULT_SERVER_NAME, resolveClientId, urlProblem } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import type { InstallRequest } from '../install/context.js';

/** What `doctor` is asked to do. */
export interface DoctorRequest {
  fix: boolean;
  serverName: string;
  /** Only this client; every client when absent. */
  client?: ClientId;
}

/** What the command line asks for: help, the version, an install/uninstall, or doctor. */
export type Command = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; request: InstallRequest } | { kind: 'doctor'; request: DoctorRequest };

/** Parses the installer's flags; unknown flags and missing values are InstallerErrors (exit 2). */
export function parseCommandLine(argv: string[]): Command {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new InstallerError(`${(error as Error).message}\nRun with --help for the options.`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [subcommand, ...extra] = positionals;
  if ((subcommand !== undefined && subcommand !== 'doctor') || extra.length > 0)
    throw new InstallerError(`Unexpected argument "${extra[0] ?? subcommand}": the only command is doctor. Run with --help for the options.`, 2);
  const client = values.client === undefined ? undefined : resolveClientId(values.client);
  if (values.client !== undefined && !client) throw new InstallerError(`Unknown client "${values.client}": use one of ${CLIENT_IDS.join(', ')} (or kiro-cli, kiro-ide).`, 2);
  const serverName = values['server-name'].trim();
  if (!/^[A-Za-z0-9_.-]+$/.test(serverName)) throw new InstallerError(`--server-name may use letters, digits, "-", "_" and "." only.`, 2);
  if (subcommand === 'doctor') return { kind: 'doctor', request: { fix: values.fix, serverName, ...(client && { client }) } };
  if (values.fix) throw new InstallerError('--fix belongs to doctor: npx cairn-mcp-installer doctor --fix', 2);
  if (!client) throw new InstallerError(`--client is required: one of ${CLIENT_IDS.join(', ')}.`, 2);
  if (values.oauth && (values['api-key'] || values['setup-code'])) throw new InstallerError('--oauth takes no key: choose --oauth or an API key, not both (one method per client).', 2);
  checkAutomaticFlags(client, values);
  if (values.url !== undefined && !values.uninstall) checkUrl(values.url);
  return {
    kind: 'run',
    request: {
      client,
      serverName,
      oauth: values.oauth,
      uninstall: values.uninstall,
      dryRun: values['dry-run'],
      yes: values.yes,
      check: !values['no-check'],
      auto: values.auto,
      autoUpdate: values['auto-update'],
      ...(values.marketplace && { marketplace: values.marketplace }),
      ...(values.url && { url: values.url }),
      ...(values['api-key'] && { apiKey: values['api-key'] }),
      ...(values['setup-code'] && { setupCode: values['setup-code'] }),
    },
  };
}

function checkAutomaticFlags(client: ClientId, values: { auto: boolean; 'auto-update': boolean; marketplace?: string | undefined; oauth: boolean; uninstall: boolean }): void {
  const wantsAuto = values.auto || values['auto-update'] || values.marketplace !== undefined;
  if (!wantsAuto || values.uninstall) return;
  const supported = Object.keys(AUTOMATIC).join(', ');
  if (!AUTOMATIC[client])
    throw new InstallerError(
      `Automatic mode (skills and capture hooks) is not available for ${CLIENTS[client].displayName}: only for ${supported}. Without --auto the installer sets up the on-demand connection.`,
      2,
    );
  if (client !== 'claude-code' && (values['auto-update'] || values.marketplace !== undefined))
    throw new InstallerError('--auto-update and --marketplace are for --client claude-code (its plugin marketplace).', 2);
  if (values.oauth) throw new InstallerError('Automatic mode sends captured turns with an API key: choose --auto or --oauth, not both.', 2);
}

/** Refuses an address the clients could not use, before anything is written or a setup code is spent (exit 2). */
function checkUrl(url: string): void {
  const problem = urlProblem(url);
  if (!problem) return;
  const given = url.trim();
  if (problem === 'has no scheme') {
    throw new InstallerError(
      `--url ${given} has no scheme: write the whole address, for example --url https://${given.replace(/\/mcp\/?$/, '')} (or http://… for a test server on this machine). Nothing was written.`,
      2,
    );
  }
  throw new InstallerError(`--url ${given} ${problem}. Nothing was written.`, 2);
}

/** The installer's flags, parsed strictly: an unknown flag or a missing value throws. */
function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      client: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'setup-code': { type: 'string' },
      oauth: { type: 'boolean', default: false },
      auto: { type: 'boolean', default: false },
      'auto-update': { type: 'boolean', default: false },
      marketplace: { type: 'string' },
      'server-name': { type: 'string', default: DEFAULT_SERVER_NAME },
      uninstall: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'no-check': { type: 'boolean', default: false },
      fix: { type: 'boolean', default: false },
      yes: { type: 'boolean', short: 'y', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
}
