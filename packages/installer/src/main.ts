import { HELP, INSTALLER_VERSION } from './cli/help.js';
import { nodeTooOld } from './cli/node-version.js';
import { parseCommandLine } from './cli/parse-args.js';
import { safeLine, withSafeOutput } from './cli/safe-output.js';
import { writeDesktopBundle } from './desktop-bundle/write-bundle.js';
import { runDoctor } from './doctor/run-doctor.js';
import { ConfigParseError, InstallerError } from './files/config-error.js';
import type { Machine } from './install/context.js';
import { runInstall } from './install/run-install.js';
import { runUninstall } from './install/run-uninstall.js';

/** Runs the installer for one command line; returns the exit code. Errors are printed, never thrown. */
export async function main(
  argv: string[],
  anyMachine: Machine,
  nodeVersion = process.version,
  anyErr: (line: string) => unknown = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  // Every line goes out masked and escaped: no secret of any entry, no control sequence from a server.
  const machine = withSafeOutput(anyMachine);
  const err = (line: string) => anyErr(safeLine(line));
  const tooOld = nodeTooOld(nodeVersion);
  // doctor runs anyway: an old Node is one of the things it reports.
  if (tooOld && argv[0] !== 'doctor') {
    err(tooOld);
    return 1;
  }
  try {
    const command = parseCommandLine(argv);
    if (command.kind === 'run' && argv.some((a) => a === '--api-key' || a.startsWith('--api-key=')))
      err(API_KEY_WARNING);
    if (command.kind === 'help') machine.out(HELP);
    if (command.kind === 'version') machine.out(INSTALLER_VERSION);
    if (command.kind === 'doctor') return await runDoctor(command.request, machine, nodeVersion);
    if (command.kind === 'bundle') return writeDesktopBundle(command.request, machine);
    if (command.kind !== 'run') return 0;
    return command.request.uninstall
      ? await runUninstall(command.request, machine)
      : await runInstall(command.request, machine);
  } catch (error) {
    if (error instanceof ConfigParseError) err(`Cannot read ${error.message}`);
    else if (error instanceof InstallerError) err(error.message);
    else err(`Unexpected error: ${(error as Error).stack ?? String(error)}`);
    return error instanceof InstallerError ? error.exitCode : 1;
  }
}

/** A key on the command line stays in the shell's history, the process list and npm's debug log. */
const API_KEY_WARNING =
  "Warning: --api-key puts the key in your shell history, the process list and npm's log (~/.npm/_logs). Next time set CAIRN_API_KEY (for example read -rs CAIRN_API_KEY; export CAIRN_API_KEY), use --setup-code, or give no key and paste it at the hidden prompt; consider revoking this key once another is installed.";
