import { mcpUrlFor } from '@cairn/clients';
import { checkConnection } from '../check/check-connection.js';
import { clientRequest } from '../check/client-request.js';
import { installerCommand } from '../cli/self-command.js';
import type { Machine } from '../install/context.js';
import type { ConfigReport, Finding } from './scan-config.js';

/** Doctor waits this long for a Cairn before leaving its keys unchecked. */
const ONLINE_TIMEOUT_MS = 4_000;

/**
 * Each API-key entry's key, checked with the Cairn it points at, as the client would send it: a revoked
 * or expired key, or a refused one, is a finding with what to do. A Codex entry whose token variable is
 * unset is one without asking. An unreachable Cairn leaves its keys unchecked (said once per address).
 */
export async function addOnlineFindings(reports: ConfigReport[], machine: Machine): Promise<string[]> {
  const notes: string[] = [];
  const seen = new Map<string, Finding | undefined>();
  const unreachable = new Set<string>();
  for (const report of reports) {
    if (!report.inspection || !report.inUse) continue;
    for (const name of report.cairnEntries) {
      const entry = report.inspection.entries[name] as Record<string, unknown>;
      const tokenVar = typeof entry?.bearer_token_env_var === 'string' ? entry.bearer_token_env_var : undefined;
      const request = clientRequest(entry, tokenVar ? machine.env[tokenVar] : undefined);
      const again = (flags: string, url?: string) => installerCommand(`--client ${report.client.id} ${flags}${name === 'cairn' ? '' : ` --server-name ${name}`}`, url);
      if (request.kind === 'unusable' && tokenVar) {
        report.findings.push({
          entry: name,
          problem: `reads its key from ${tokenVar}, which is not set here, so Codex sends no key`,
          fix: `run ${again('--setup-code <code from the portal, Datapacks > Connect>', typeof entry.url === 'string' ? entry.url : undefined)}: it writes the key into the table itself (mode 0600), with nothing to export`,
        });
        continue;
      }
      if (request.kind !== 'http') continue;
      const id = `${mcpUrlFor(request.url)}\0${request.headers.Authorization ?? ''}`;
      if (!seen.has(id)) {
        if (unreachable.has(request.url)) continue;
        const result = await checkConnection(request.url, request.headers, machine.fetch, ONLINE_TIMEOUT_MS);
        if (!result.ok && (result.cause === 'unreachable' || result.cause === 'timeout' || result.cause === 'tls')) {
          unreachable.add(request.url);
          notes.push(`Not checked online: ${result.message} The keys for ${request.url} were checked offline only.`);
          continue;
        }
        seen.set(id, keyFinding(result, again('--setup-code <code from the portal, Datapacks > Connect>', request.url)));
      }
      const finding = seen.get(id);
      if (finding) report.findings.push({ ...finding, entry: name });
    }
  }
  return notes;
}

function keyFinding(result: Awaited<ReturnType<typeof checkConnection>>, reinstall: string): Finding | undefined {
  if (result.ok) return undefined;
  if (result.cause === 'bad-key') return { problem: `Cairn refuses the key: ${result.message}`, fix: `the key is revoked, expired or mistyped: get a setup code and run ${reinstall}` };
  if (result.cause === 'forbidden')
    return { problem: `Cairn refuses the key: ${result.message}`, fix: `check the key's access in the portal (Settings > API Keys), or get a setup code and run ${reinstall}` };
  return undefined;
}
