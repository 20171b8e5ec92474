import { CLIENT_IDS, CLIENTS, configPaths, KEY_PREFIX } from '@cairn/clients';
import { MINIMUM_NODE, nodeTooOld } from '../cli/node-version.js';
import type { DoctorRequest } from '../cli/parse-args.js';
import type { Machine } from '../install/context.js';
import { maskKey } from '../install/resolve-key.js';
import { fixConfig } from './fix-config.js';
import { addOnlineFindings } from './online-check.js';
import { type ConfigReport, scanConfig } from './scan-config.js';

const KEYS = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]+`, 'g');

/** `doctor [--fix]`: inspects every client's config on this machine, one line per problem; exit 1 while any problem remains. */
export async function runDoctor(request: DoctorRequest, machine: Machine, nodeVersion: string): Promise<number> {
  const say = (line: string) => machine.out(line.replace(KEYS, (key) => maskKey(key)));
  const reports: ConfigReport[] = [];
  for (const id of request.client ? [request.client] : CLIENT_IDS) {
    configPaths(id, machine).forEach((path, index) => {
      const report = scanConfig(CLIENTS[id], path, index === 0, request.serverName, machine);
      if (report) reports.push(report);
    });
  }
  const nodeProblems = await nodeFindings(machine, nodeVersion, reports);
  const notes = await addOnlineFindings(reports, machine);
  let open = 0;
  let fixable = false;
  for (const report of reports) {
    const where = `${report.path}${report.inUse ? '' : ' (not the file in use: an environment variable points the client elsewhere)'}`;
    const fixed = request.fix ? fixConfig(report) : undefined;
    for (const finding of report.findings) {
      const subject = `${where}: ${finding.entry ? `"${finding.entry}" ` : ''}${finding.problem}`;
      const done =
        fixed !== undefined &&
        finding.repair !== undefined &&
        (finding.repair.kind === 'mode'
          ? fixed.chmod || fixed.rewritten.length > 0
          : fixed.rewritten.includes(finding.entry ?? ''));
      if (done) say(`Fixed: ${subject}`);
      else {
        open++;
        if (finding.repair) fixable = true;
        say(
          `${request.fix ? 'Left for you: ' : ''}${subject}. Fix: ${finding.fix}${request.fix || !finding.repair ? '' : ' (doctor --fix does this)'}`,
        );
      }
    }
    if (fixed?.backup) say(`  Backup of the previous ${fixed.target}: ${fixed.backup}`);
  }
  for (const line of nodeProblems) say(line);
  for (const line of notes) say(line);
  open += nodeProblems.length;
  const entries = reports.reduce((n, r) => n + r.cairnBlocks.length, 0);
  if (open === 0)
    say(
      `No problems: ${entries} Cairn ${entries === 1 ? 'entry' : 'entries'} in ${reports.length} config ${reports.length === 1 ? 'file' : 'files'} checked.`,
    );
  else if (request.fix) say(`${open} ${open === 1 ? 'problem' : 'problems'} left.`);
  else if (fixable)
    say(`${open} ${open === 1 ? 'problem' : 'problems'}. Run doctor --fix to repair what can be repaired safely.`);
  else
    say(
      `${open} ${open === 1 ? 'problem. doctor --fix cannot repair it: follow the Fix above' : 'problems. doctor --fix cannot repair them: follow each Fix above'}.`,
    );
  return open === 0 ? 0 : 1;
}

async function nodeFindings(machine: Machine, running: string, reports: ConfigReport[]): Promise<string[]> {
  const lines: string[] = [];
  if (nodeTooOld(running))
    lines.push(
      `Node.js ${running.replace(/^v/, '')} runs this installer: too old (needs ${MINIMUM_NODE}). Fix: install a current Node.js LTS (https://nodejs.org).`,
    );
  // The chat desktop client starts its bridge with the `npx` on PATH: that Node matters too.
  const bridge = reports.some((r) => r.client.id === 'claude-desktop' && r.cairnBlocks.length > 0);
  const node = bridge ? machine.which('node') : undefined;
  if (node) {
    const found = (await machine.run('node', ['--version'])).stdout.trim();
    if (found && found !== running && nodeTooOld(found)) {
      lines.push(
        `Node.js ${found.replace(/^v/, '')} at ${node} starts Claude Desktop's bridge: too old (needs ${MINIMUM_NODE}). Fix: install a current Node.js LTS and make it the first node on PATH.`,
      );
    }
  }
  return lines;
}
