import { parseArgs } from 'node:util';
import { CLIENT_IDS, DEFAULT_SERVER_NAME, resolveClientId } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import type { InstallRequest } from '../install/context.js';

/** What the command line asks for: help, the version, or an install/uninstall. */
export type Command = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; request: InstallRequest };

/** Parses the installer's flags; unknown flags and missing values are InstallerErrors (exit 2). */
export function parseCommandLine(argv: string[]): Command {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        client: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        'setup-code': { type: 'string' },
        oauth: { type: 'boolean', default: false },
        'server-name': { type: 'string', default: DEFAULT_SERVER_NAME },
        uninstall: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        yes: { type: 'boolean', short: 'y', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    }));
  } catch (error) {
    throw new InstallerError(`${(error as Error).message}\nRun with --help for the options.`, 2);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (!values.client) throw new InstallerError(`--client is required: one of ${CLIENT_IDS.join(', ')}.`, 2);
  const client = resolveClientId(values.client);
  if (!client) throw new InstallerError(`Unknown client "${values.client}": use one of ${CLIENT_IDS.join(', ')} (or kiro-cli, kiro-ide).`, 2);
  const serverName = values['server-name'].trim();
  if (!/^[A-Za-z0-9_.-]+$/.test(serverName)) throw new InstallerError(`--server-name may use letters, digits, "-", "_" and "." only.`, 2);
  if (values.oauth && (values['api-key'] || values['setup-code'])) throw new InstallerError('--oauth takes no key: choose --oauth or an API key, not both (one method per client).', 2);
  return {
    kind: 'run',
    request: {
      client,
      serverName,
      oauth: values.oauth,
      uninstall: values.uninstall,
      dryRun: values['dry-run'],
      yes: values.yes,
      ...(values.url && { url: values.url }),
      ...(values['api-key'] && { apiKey: values['api-key'] }),
      ...(values['setup-code'] && { setupCode: values['setup-code'] }),
    },
  };
}
