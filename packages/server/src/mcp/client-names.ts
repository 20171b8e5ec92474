import { CLIENT_INFO_META_KEY } from '@modelcontextprotocol/server';
import { BoundedCache } from '../cache/bounded-cache.js';
import type { Logger } from '../log/logger.js';
import type { Store } from '../store/store.js';
import type { ClientCredential } from '../store/types.js';

/** Most credentials remembered per instance; the oldest is forgotten first. */
const MAX_REMEMBERED = 10_000;
/** How long a name read from (or written to) the database is trusted before it is read again: another instance may have learned a newer one. */
const TRUSTED_MS = 60_000;
/** How long "no name kept" is trusted: a legacy client's `initialize` on another instance is written at once, so this is soon seen. */
const UNKNOWN_TRUSTED_MS = 5_000;

/**
 * The name a client gives itself, as people read it: "Claude Code 2.1.330". A 2025-era client says it
 * once, in `initialize` (`params.clientInfo`); a 2026-07-28 client says it on every request, in
 * `params._meta["io.modelcontextprotocol/clientInfo"]`. In a batch, the first message that names one.
 * Every API-key client sends the same installer User-Agent, so this is what tells them apart.
 * Control characters are dropped and the label is bounded: it is shown in the portal and the CLI.
 */
export function clientLabel(body: unknown): string | undefined {
  if (Array.isArray(body)) {
    for (const message of body) {
      const label = clientLabel(message);
      if (label) return label;
    }
    return undefined;
  }
  if (!isObject(body) || !isObject(body.params)) return undefined;
  const info =
    body.method === 'initialize'
      ? body.params.clientInfo
      : isObject(body.params._meta)
        ? body.params._meta[CLIENT_INFO_META_KEY]
        : undefined;
  if (!isObject(info)) return undefined;
  const { name, title, version } = info;
  const shown = typeof title === 'string' && title.trim() ? title : name;
  if (typeof shown !== 'string') return undefined;
  const label = `${shown} ${typeof version === 'string' ? version : ''}`
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return label ? label.slice(0, 80) : undefined;
}

/**
 * Which client each credential last named itself as. A 2025-era client names itself only in
 * `initialize`, and a stateless server behind a load balancer may see that on one instance and the
 * calls that follow on another: the name is written with the credential (api_key.client_name,
 * oauth_client_use.client_name) when it is new here, and read back by an instance that has not seen it.
 */
export class ClientNames {
  private readonly names = new BoundedCache<string, { label: string | undefined; until: number }>(MAX_REMEMBERED);

  constructor(
    private readonly store: Pick<Store, 'rememberClientName' | 'clientNameOf'>,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The name of the client behind this call: the one it gives now (kept for the calls that follow,
   * on every instance), else the one its credential was last given anywhere. A credential that is
   * neither a key nor an OAuth grant is remembered here only.
   */
  async of(credential: ClientCredential | string, introduced: string | undefined): Promise<string | undefined> {
    const id =
      typeof credential === 'string'
        ? credential
        : 'keyId' in credential
          ? `key:${credential.keyId}`
          : `oauth:${credential.oauthClientId}:${credential.userId}`;
    const known = this.names.get(id);
    const fresh = known !== undefined && known.until > this.now();
    if (introduced) {
      if (fresh && known.label === introduced) return introduced;
      this.names.set(id, { label: introduced, until: this.now() + TRUSTED_MS });
      if (typeof credential !== 'string') {
        // Not worth failing the call for: the name is a label, and the next call says it again or reads it back.
        await this.store
          .rememberClientName(credential, introduced, new Date(this.now()).toISOString())
          .catch((error: Error) => this.log.warn('could not keep the client name', { error: error.message }));
      }
      return introduced;
    }
    if (fresh || typeof credential === 'string') return known?.label;
    const kept = await this.store.clientNameOf(credential).catch(() => undefined);
    this.names.set(id, { label: kept, until: this.now() + (kept ? TRUSTED_MS : UNKNOWN_TRUSTED_MS) });
    return kept;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
