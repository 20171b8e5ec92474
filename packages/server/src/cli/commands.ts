import { clientProductName } from '@cairn/contract';
import { terminalSafe } from '@cairn/contract/terminal';
import { createUser, resetPassword } from '../domain/accounts.js';
import { createApiKey, keyState, listApiKeys, parseExpiresFlag, revokeApiKey } from '../domain/api-keys.js';
import { audit } from '../domain/audit.js';
import { createSetupCode } from '../domain/setup-codes.js';
import { addUserToTeam, createTeam, teamOrganization } from '../domain/teams.js';
import { CairnError } from '../errors/cairn-error.js';
import type { Cairn } from '../runtime/open-cairn.js';
import { describeStore } from '../runtime/open-store.js';
import { readSecret } from './read-secret.js';

/** `cairn status`: the database, how much it holds, and how far the embeddings provider has got. */
export async function status(cairn: Cairn): Promise<void> {
  const [users, progress] = await Promise.all([
    cairn.store.countUsers(),
    cairn.store.embeddingProgress(cairn.embedder?.model ?? ''),
  ]);
  const lines = [`Database: ${describeStore(cairn.config)}`, `Users: ${users}`, `Entries: ${progress.entries}`];
  const search = cairn.config.semanticSearch
    ? 'hybrid (lexical, offline word vectors, conversation context)'
    : 'lexical only (CAIRN_SEARCH_SEMANTIC=false)';
  lines.push(`Search: ${search}`);
  if (cairn.embedder) {
    const share = progress.entries ? Math.floor((100 * progress.embedded) / progress.entries) : 100;
    lines.push(
      `Embeddings: ${cairn.embedder.model} at ${cairn.config.embeddings!.url}: ${progress.embedded} of ${progress.entries} entries (${share}%)`,
    );
  } else {
    lines.push('Embeddings: no provider (set CAIRN_EMBEDDINGS_URL and CAIRN_EMBEDDINGS_MODEL to add one)');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Parsed command-line options of one command. */
export type Options = Record<string, string | boolean | undefined>;

/** `cairn users create`: prints the new user's id; the password comes from stdin only. */
export async function usersCreate(cairn: Cairn, o: Options): Promise<void> {
  if (!o['password-stdin'])
    throw new CairnError(
      'invalid_input',
      'Pass --password-stdin and give the password on standard input (it never goes on the command line).',
    );
  const password = await readSecret('Password for the new user (input hidden): ');
  const { user, organization } = await createUser(cairn.domain, cairn.auth, {
    email: required(o, 'email'),
    name: str(o.name),
    org: str(o.org),
    join: o.join === true,
    password,
  });
  const owners =
    organization.role === 'owner' ? 'a new organization' : `owners: ${organization.owners.join(', ') || 'none'}`;
  process.stderr.write(`Created ${user.email} (${organization.role} of "${organization.name}", ${owners}).\n`);
  process.stdout.write(`${user.id}\n`);
}

/** `cairn users reset-password`: a new password from stdin only; the user's sessions end. */
export async function usersResetPassword(cairn: Cairn, o: Options): Promise<void> {
  const email = required(o, 'email');
  if (!o['password-stdin'])
    throw new CairnError(
      'invalid_input',
      'Pass --password-stdin and give the new password on standard input (it never goes on the command line).',
    );
  const password = await readSecret(`New password for ${email} (input hidden): `);
  const user = await resetPassword(cairn.domain, cairn.auth, email, password);
  process.stderr.write(
    `Password of ${user.email} replaced; every session of theirs has ended, so they sign in again with the new one.\n`,
  );
}

/** `cairn keys create`: prints the key, and only the key, on stdout. */
export async function keysCreate(cairn: Cairn, o: Options): Promise<void> {
  const name = required(o, 'name');
  // Flags are checked before anything is looked up or written, so a typo never leaves a key behind.
  const scope = str(o.scope);
  if (scope !== undefined && scope !== 'read' && scope !== 'read-write') {
    throw new CairnError(
      'invalid_input',
      `--scope must be "read" (list, search, guidance, get) or "read-write" (everything) (got "${scope.slice(0, 40)}").`,
    );
  }
  const expiry = typeof o.expires === 'string' ? parseExpiresFlag(o.expires) : {};
  const user = await userByEmail(cairn, required(o, 'user'));
  const { key, record } = await createApiKey(cairn.domain, user.id, name, { scope, ...expiry });
  const expires = record.expiresAt ? `expires ${record.expiresAt}` : 'never expires';
  process.stderr.write(
    `Created ${record.scope} key ${record.id} "${terminalSafe(record.name)}" for ${user.email} (${expires}). It is shown only now: store it safely.\n`,
  );
  process.stdout.write(`${key}\n`);
}

/** `cairn keys list`: one line per key, never the key itself. */
export async function keysList(cairn: Cairn, o: Options): Promise<void> {
  const user = await userByEmail(cairn, required(o, 'user'));
  const keys = await listApiKeys(cairn.domain, user.id);
  if (keys.length === 0) process.stderr.write(`${user.email} has no API keys.\n`);
  const now = cairn.domain.now();
  for (const k of keys) {
    const state = { active: 'active', revoked: `revoked ${k.revokedAt}`, expired: `expired ${k.expiresAt}` }[
      keyState(k, now)
    ];
    const expires = k.expiresAt ? `expires ${k.expiresAt}` : 'no expiry';
    // Names come from users and clients: escaped, so none can rewrite the operator's terminal or add a line.
    const used = k.lastUsedAt
      ? `last used ${k.lastUsedAt} by ${terminalSafe(k.lastUsedClient ? clientProductName(k.lastUsedClient) : 'unknown client')}`
      : 'never used';
    process.stdout.write(
      `${k.id}\t${terminalSafe(k.name)}\t${k.start}…${k.last4}\t${k.scope}\tcreated ${k.createdAt}\t${expires}\t${used}\t${state}\n`,
    );
  }
}

/** `cairn keys revoke <id>`: the key stops working at once. */
export async function keysRevoke(cairn: Cairn, _o: Options, args: string[]): Promise<void> {
  const id = args[0];
  if (!id)
    throw new CairnError(
      'invalid_input',
      'Name the key to revoke: cairn keys revoke <key id> (see cairn keys list --user <email>).',
    );
  const key = await revokeApiKey(cairn.domain, id);
  process.stderr.write(`Revoked ${key.id} "${terminalSafe(key.name)}".\n`);
}

/** `cairn setup-codes create`: prints a one-time code (10 minutes) for `cairn-mcp-installer --setup-code`. */
export async function setupCodesCreate(cairn: Cairn, o: Options): Promise<void> {
  const user = await userByEmail(cairn, required(o, 'user'));
  const { code, expiresAt } = await createSetupCode(cairn.domain, user.id);
  process.stderr.write(`One-time setup code for ${user.email}, valid until ${expiresAt}:\n`);
  process.stdout.write(`${code}\n`);
}

/** `cairn teams create`: prints the new team's id. */
export async function teamsCreate(cairn: Cairn, o: Options): Promise<void> {
  const orgName = required(o, 'org');
  const org = (await cairn.store.listOrganizations()).find((x) => x.name.toLowerCase() === orgName.toLowerCase());
  if (!org) throw new CairnError('not_found', `No organization named "${orgName}".`);
  const team = await createTeam(cairn.domain, cairn.auth, org.id, required(o, 'name'));
  audit(cairn.domain, {
    kind: 'team.created',
    organizationId: org.id,
    target: { type: 'team', id: team.id, name: team.name },
  });
  process.stdout.write(`${team.id}\n`);
}

/** `cairn teams add-member`: adds an organization member to a team. */
export async function teamsAddMember(cairn: Cairn, o: Options): Promise<void> {
  const user = await userByEmail(cairn, required(o, 'user'));
  await addUserToTeam(cairn.domain, cairn.auth, required(o, 'team'), user.id);
  audit(cairn.domain, {
    kind: 'team.member_added',
    organizationId: await teamOrganization(cairn.auth, required(o, 'team')),
    target: { type: 'team', id: required(o, 'team'), name: `user ${user.id}` },
  });
  process.stderr.write(`Added ${user.email} to team ${o.team}.\n`);
}

async function userByEmail(cairn: Cairn, email: string) {
  const user = await cairn.store.findUserByEmail(email);
  if (!user)
    throw new CairnError(
      'not_found',
      `No user with the email ${email}; create one with: cairn users create --email ${email} --password-stdin`,
    );
  return user;
}

function required(o: Options, name: string): string {
  const value = o[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CairnError('invalid_input', `--${name} is required.`);
  return value;
}

function str(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
