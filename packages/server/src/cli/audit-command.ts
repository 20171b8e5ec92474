import { terminalSafe } from '@cairn/contract/terminal';
import { listAuditAsOperator } from '../domain/audit-read.js';
import { CairnError } from '../errors/cairn-error.js';
import type { Cairn } from '../runtime/open-cairn.js';
import type { AuditEvent } from '../store/audit-types.js';
import type { Options } from './commands.js';

/**
 * `cairn audit`: the operator's view of the audit trail, newest first; one event a line
 * (time, kind, outcome, who, credential, client, target), or `--json`.
 */
export async function auditList(cairn: Cairn, o: Options): Promise<void> {
  const text = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const orgName = text('org');
  const email = text('user');
  let organizationId: string | undefined;
  if (orgName !== undefined) {
    organizationId = (await cairn.store.listOrganizations()).find(
      (x) => x.name.toLowerCase() === orgName.toLowerCase(),
    )?.id;
    if (!organizationId) throw new CairnError('not_found', `No organization named "${orgName}".`);
  }
  let actorUserId: string | undefined;
  if (email !== undefined) {
    actorUserId = (await cairn.store.findUserByEmail(email))?.id;
    if (!actorUserId) throw new CairnError('not_found', `No user with the email ${email}.`);
  }
  const limit = text('limit');
  if (limit !== undefined && !/^\d{1,3}$/.test(limit))
    throw new CairnError(
      'invalid_input',
      `--limit must be a whole number from 1 to 200 (got "${limit.slice(0, 20)}").`,
    );
  const page = await listAuditAsOperator(cairn.domain, {
    organizationId,
    actorUserId,
    kind: text('kind'),
    since: text('since'),
    until: text('until'),
    cursor: text('cursor'),
    limit: limit === undefined ? 50 : Number(limit),
  });
  if (o.json) {
    process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
    return;
  }
  if (page.events.length === 0) process.stderr.write('No audit events match.\n');
  for (const e of page.events) process.stdout.write(`${line(e)}\n`);
  if (page.nextCursor) process.stderr.write(`More: add --cursor ${page.nextCursor}\n`);
}

function line(e: AuditEvent): string {
  const credential = e.credential
    ? [e.credential.type, e.credential.name ?? e.credential.id].filter(Boolean).join(' ')
    : '-';
  const target = e.target
    ? `${e.target.type} ${e.target.id ?? ''} ${e.target.name ? `"${e.target.name}"` : ''}`.trim()
    : '-';
  // Names and clients come from users: each field escaped, so none can rewrite the terminal or add a line.
  return [e.at, e.kind, e.outcome, e.actorEmail ?? e.actorUserId ?? '-', credential, e.client ?? '-', target]
    .map((field) => terminalSafe(field))
    .join('\t');
}
