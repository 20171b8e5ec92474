import { CAIRN_OWN_USER_AGENT_PATTERN } from '@cairn/contract';
import type { Caller } from '../domain/caller.js';
import { CairnError } from '../errors/cairn-error.js';
import { KEY_PREFIX } from './api-keys/key-format.js';
import type { KeyVerifier } from './api-keys/key-verifier.js';

/** What an `Authorization` header holds, as every door (`/mcp`, `/api/v1`) reads it. */
export type BearerHeader =
  | { kind: 'absent' }
  /** Empty, a bare "Bearer", or an unexpanded `${NAME}` left by a bridge entry whose env name differs. */
  | { kind: 'blank'; unexpanded?: string }
  /** Something other than "Bearer <token>". */
  | { kind: 'malformed' }
  | { kind: 'token'; token: string; isApiKey: boolean };

/** Parses an `Authorization` header; the one parser both doors use. */
export function readBearer(header: string | null | undefined): BearerHeader {
  if (header === null || header === undefined) return { kind: 'absent' };
  const unexpanded = /\$\{([^}]*)\}/.exec(header);
  if (unexpanded) return { kind: 'blank', unexpanded: unexpanded[1] };
  if (/^(Bearer)?\s*$/i.test(header)) return { kind: 'blank' };
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) return { kind: 'malformed' };
  return { kind: 'token', token: match[1]!, isApiKey: match[1]!.startsWith(KEY_PREFIX) };
}

/** A refused credential: one error type, rendered as JSON-RPC on `/mcp` and as JSON on `/api/v1`. */
export class CredentialRefusal extends CairnError {
  constructor(
    readonly status: 401 | 403,
    /** The RFC 6750 error for the `WWW-Authenticate` challenge, when there is one. */
    readonly oauthError: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined,
    message: string,
  ) {
    super(status === 401 ? 'unauthenticated' : 'forbidden', message);
  }
}

/** The refusal for a header that carries no usable token, in words that say how to fix it. */
export function unusableHeader(
  header: Exclude<BearerHeader, { kind: 'absent' } | { kind: 'token' }>,
): CredentialRefusal {
  if (header.kind === 'malformed') {
    return new CredentialRefusal(
      401,
      'invalid_request',
      'The Authorization header must be "Bearer <API key>": the "Bearer " prefix is required. Send Authorization: Bearer cairn_tkn_…',
    );
  }
  // The bridge entry's classic mistake: env name and ${…} reference differ.
  const what =
    header.unexpanded !== undefined ? `holds the unexpanded reference \${${header.unexpanded}}` : 'carries no key';
  return new CredentialRefusal(
    401,
    'invalid_request',
    `The Authorization header ${what}. In the bridge entry, the variable named in "Authorization:\${AUTH_HEADER}" must be set under "env" with exactly the same name (AUTH_HEADER = "Bearer cairn_tkn_…").`,
  );
}

/** One message for unknown, revoked and malformed keys and tokens: the answer must not reveal which. */
export function invalidCredentialMessage(): string {
  return `The API key is not valid (it may have been revoked or mistyped). Keys start with "${KEY_PREFIX}". Generate a new one in the Cairn portal under Settings > API Keys > Generate API key. Connected with OAuth? Reconnect the client to sign in again.`;
}

/**
 * Verifies an API key (checksum first, then the hashed lookup), notes its use without a write,
 * and returns the caller it stands for; throws a CredentialRefusal for any key that is not valid.
 */
export async function callerForApiKey(
  keys: KeyVerifier,
  key: string,
  client: string | null,
  options: {
    via?: 'api_key' | 'legacy_api_key';
    /** A door's own rule for a genuine key (it throws to refuse); a refused request is not a use. */
    admit?: () => void;
    /** When `client` (a User-Agent) matches this it says nothing: name the client the key was last used by instead. Default: Cairn's own installer and capture hook. */
    uninformative?: RegExp;
  } = {},
): Promise<Caller> {
  const verified = await keys.verify(key);
  if (!verified) throw new CredentialRefusal(401, 'invalid_token', invalidCredentialMessage());
  const { record, epoch } = verified;
  options.admit?.();
  const via = options.via ?? 'api_key';
  // "Last used by" names the last agent: the installer and the capture hook keep the agent named before them.
  const uninformative = options.uninformative ?? CAIRN_OWN_USER_AGENT_PATTERN;
  if (uninformative.test(client ?? '') && record.lastUsedClient && !uninformative.test(record.lastUsedClient))
    client = record.lastUsedClient;
  keys.noteUse(record.id, client);
  return {
    userId: record.userId,
    client,
    via,
    keyId: record.id,
    keyName: record.name,
    scope: record.scope,
    accessEpoch: epoch,
  };
}
