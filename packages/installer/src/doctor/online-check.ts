import { mcpUrlFor } from '@cairn/clients';
import { checkConnection } from '../check/check-connection.js';
import { clientRequest } from '../check/client-request.js';
import { cairnBase, installerCommand, YOUR_CAIRN } from '../cli/self-command.js';
import type { Machine } from '../install/context.js';
import type { ConfigReport, Finding } from './scan-config.js';

/** Doctor waits this long for a Cairn before leaving its keys unchecked. */
const ONLINE_TIMEOUT_MS = 4_000;

/** What a setup code in a printed command stands for, until the user pastes one. */
const SETUP_CODE = '<code from the portal, Datapacks > Connect>';

/**
 * Each API-key entry's key, checked with the Cairn it points at, as the client would send it: a revoked
 * or expired key, or a refused one, is a finding with what to do. So is an address where no Cairn
 * answers (404, a web page, another MCP server) or that redirects. A Codex entry whose token variable is
 * unset is one without asking. An unreachable Cairn leaves its keys unchecked (said once per address).
 * Every command a fix prints runs as printed, with its `<…>` filled in: it names --url, since a setup
 * code is redeemed at the Cairn that issued it.
 */
export async function addOnlineFindings(reports: ConfigReport[], machine: Machine): Promise<string[]> {
  const notes: string[] = [];
  const seen = new Map<string, Finding | undefined>();
  const unreachable = new Set<string>();
  for (const report of reports) {
    if (!report.inspection || !report.inUse) continue;
    for (const name of report.cairnBlocks) {
      const entry = report.inspection.entries[name] as Record<string, unknown>;
      const tokenVar = typeof entry?.bearer_token_env_var === 'string' ? entry.bearer_token_env_var : undefined;
      const request = clientRequest(entry, tokenVar ? machine.env[tokenVar] : undefined);
      const serverName = name === 'cairn' ? '' : ` --server-name ${name}`;
      const reinstall = (url: string) =>
        installerCommand(
          `--client ${report.client.id} --url ${cairnBase(url) ?? url} --setup-code ${SETUP_CODE}${serverName}`,
          url,
        );
      if (request.kind === 'unusable' && tokenVar) {
        report.findings.push({
          entry: name,
          problem: `reads its key from ${tokenVar}, which is not set here, so Codex sends no key`,
          fix: `run ${typeof entry.url === 'string' && cairnBase(entry.url) ? reinstall(entry.url) : elsewhere(report.client.id, serverName)}: it writes the key into the table itself (mode 0600), with nothing to export`,
        });
        continue;
      }
      if (request.kind !== 'http') continue;
      const id = `${mcpUrlFor(request.url)}\0${request.headers.Authorization ?? ''}`;
      if (!seen.has(id)) {
        if (unreachable.has(request.url)) continue;
        const result = await checkConnection(request.url, request.headers, machine.fetch, ONLINE_TIMEOUT_MS);
        if (!result.ok && ['unreachable', 'timeout', 'tls', 'server-error'].includes(result.cause)) {
          unreachable.add(request.url);
          notes.push(`Not checked online: ${result.message} The keys for ${request.url} were checked offline only.`);
          continue;
        }
        seen.set(id, keyFinding(result, reinstall(request.url), elsewhere(report.client.id, serverName)));
      }
      const finding = seen.get(id);
      if (finding) report.findings.push({ ...finding, entry: name });
    }
  }
  return notes;
}

/** The install command for a Cairn whose address the user has to give: the entry's is not one. */
function elsewhere(client: string, serverName: string): string {
  return installerCommand(`--client ${client} --url ${YOUR_CAIRN} --setup-code ${SETUP_CODE}${serverName}`, YOUR_CAIRN);
}

function keyFinding(
  result: Awaited<ReturnType<typeof checkConnection>>,
  reinstall: string,
  elsewhere: string,
): Finding | undefined {
  if (result.ok) return undefined;
  const said = result.message.replace(/\.$/, '');
  const whereInstead = `find your Cairn's address (its portal shows it under Datapacks > Connect) and run ${elsewhere}`;
  if (result.cause === 'not-cairn')
    return { problem: `points at a server that is not a Cairn: ${said}`, fix: whereInstead };
  if (result.cause === 'redirect')
    return { problem: `points at an address that redirects: ${said}`, fix: whereInstead };
  if (result.cause === 'bad-key')
    return {
      problem: `Cairn refuses the key: ${said}`,
      fix: `the key is revoked, expired or mistyped: get a setup code and run ${reinstall}`,
    };
  if (result.cause === 'forbidden')
    return {
      problem: `Cairn refuses the key: ${said}`,
      fix: `check the key's access in the portal (Settings > API Keys), or get a setup code and run ${reinstall}`,
    };
  return undefined;
}
