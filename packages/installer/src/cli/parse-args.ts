import { parseArgs } from 'node:util';
import {
  AUTOMATIC,
  CLIENT_IDS,
  CLIENTS,
  type ClientId,
  DEFAULT_SERVER_NAME,
  resolveClientId,
  urlProblem,
} from '@cairn/clients';
import type { BundleRequest } from '../desktop-bundle/write-bundle.js';
import { InstallerError } from '../files/config-error.js';
import type { InstallRequest } from '../install/context.js';

/** What `doctor` is asked to do. */
export interface DoctorRequest {
  fix: boolean;
  serverName: string;
  /** Only this client; every client when absent. */
  client?: ClientId;
}

/** What the command line asks for: help, the version, an install/uninstall, doctor, or the Claude Desktop extension file. */
export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; request: InstallRequest }
  | { kind: 'doctor'; request: DoctorRequest }
  | { kind: 'bundle'; request: BundleRequest };

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
    throw new InstallerError(
      `Unexpected argument "${extra[0] ?? subcommand}": the only command is doctor. Run with --help for the options.`,
      2,
    );
  const client = values.client === undefined ? undefined : resolveClientId(values.client);
  if (values.client !== undefined && !client)
    throw new InstallerError(
      `Unknown client "${values.client}": use one of ${CLIENT_IDS.join(', ')} (or kiro-cli, kiro-ide).`,
      2,
    );
  const serverName = values['server-name'].trim();
  if (!/^[A-Za-z0-9_.-]+$/.test(serverName))
    throw new InstallerError(`--server-name may use letters, digits, "-", "_" and "." only.`, 2);
  if (subcommand === 'doctor')
    return { kind: 'doctor', request: { fix: values.fix, serverName, ...(client && { client }) } };
  if (values.fix)
    throw new InstallerError(
      '--fix belongs to doctor: npx -y <cairn url>/install/cairn-mcp-installer.tgz doctor --fix',
      2,
    );
  if (!client) throw new InstallerError(`--client is required: one of ${CLIENT_IDS.join(', ')}.`, 2);
  if (values.bundle) return { kind: 'bundle', request: bundleRequest(client, values) };
  if (values.out !== undefined)
    throw new InstallerError(
      '--out belongs to --bundle: npx -y <cairn url>/install/cairn-mcp-installer.tgz --client claude-desktop --bundle --url <cairn url> --out <path>',
      2,
    );
  if (values.oauth && (values['api-key'] || values['setup-code']))
    throw new InstallerError(
      '--oauth takes no key: choose --oauth or an API key, not both (one method per client).',
      2,
    );
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

function checkAutomaticFlags(
  client: ClientId,
  values: {
    auto: boolean;
    'auto-update': boolean;
    marketplace?: string | undefined;
    oauth: boolean;
    uninstall: boolean;
  },
): void {
  const wantsAuto = values.auto || values['auto-update'] || values.marketplace !== undefined;
  if (!wantsAuto || values.uninstall) return;
  const supported = Object.keys(AUTOMATIC).join(', ');
  if (!AUTOMATIC[client])
    throw new InstallerError(
      `Automatic mode (skills and capture hooks) is not available for ${CLIENTS[client].displayName}: only for ${supported}. Without --auto the installer sets up the on-demand connection.`,
      2,
    );
  if (client !== 'claude-code' && (values['auto-update'] || values.marketplace !== undefined))
    throw new InstallerError(
      '--auto-update and --marketplace are for --client claude-code (its plugin marketplace).',
      2,
    );
  if (values.oauth)
    throw new InstallerError(
      'Automatic mode sends captured turns with an API key: choose --auto or --oauth, not both.',
      2,
    );
}

/** `--bundle`: only for Claude Desktop, with an address and nothing that would put a key or an entry anywhere. */
function bundleRequest(client: ClientId, values: ReturnType<typeof parseFlags>['values']): BundleRequest {
  if (client !== 'claude-desktop')
    throw new InstallerError(
      `--bundle makes a Claude Desktop extension (.mcpb) and is only for --client claude-desktop. For ${CLIENTS[client].displayName}, run without --bundle: npx -y <cairn url>/install/cairn-mcp-installer.tgz --client ${client} --url <cairn url>`,
      2,
    );
  const clash = (
    ['api-key', 'setup-code', 'oauth', 'uninstall', 'auto', 'auto-update', 'marketplace', 'dry-run'] as const
  ).find((flag) => values[flag]);
  if (clash)
    throw new InstallerError(
      `--bundle takes no --${clash}: the extension holds no key (Claude Desktop asks for it when you install the file) and is removed in Claude Desktop > Settings > Extensions.`,
      2,
    );
  if (values['server-name'].trim() !== DEFAULT_SERVER_NAME)
    throw new InstallerError(
      '--bundle takes no --server-name: the extension is always named Cairn in Claude Desktop > Settings > Extensions.',
      2,
    );
  if (values.url === undefined)
    throw new InstallerError(
      '--bundle needs --url: the address of your Cairn, for example --url https://cairn.example.com',
      2,
    );
  checkUrl(values.url);
  return { url: values.url, ...(values.out !== undefined && { out: values.out }) };
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

/** The installer's flags (docs-commands.test.ts checks every flag the docs show against them). */
export const INSTALLER_FLAGS = {
  client: { type: 'string' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  'setup-code': { type: 'string' },
  oauth: { type: 'boolean', default: false },
  auto: { type: 'boolean', default: false },
  'auto-update': { type: 'boolean', default: false },
  marketplace: { type: 'string' },
  'server-name': { type: 'string', default: DEFAULT_SERVER_NAME },
  bundle: { type: 'boolean', default: false },
  out: { type: 'string' },
  uninstall: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  'no-check': { type: 'boolean', default: false },
  fix: { type: 'boolean', default: false },
  yes: { type: 'boolean', short: 'y', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

/** The installer's flags, parsed strictly: an unknown flag or a missing value throws. */
function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: INSTALLER_FLAGS,
  });
}
