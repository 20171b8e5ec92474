import { Hono } from 'hono';
import { revokeApiKey } from '../../domain/api-keys.js';
import type { DomainDeps } from '../../domain/deps.js';
import { CairnError } from '../../errors/cairn-error.js';
import type { ApiEnv } from './api-auth.js';

/**
 * `DELETE /keys/self`: the API key that authenticates the request revokes itself, and nothing else.
 * The installer calls it with the key it just replaced in a client's config, so re-running with a
 * new setup code leaves no forgotten key active. Holding a key already allows using it; retiring it
 * grants nothing more, so this stays safe for a key (managing other keys needs a portal session).
 */
export function createKeySelfRoutes(deps: DomainDeps): Hono<ApiEnv> {
  const routes = new Hono<ApiEnv>();
  routes.delete('/keys/self', async (c) => {
    const caller = c.get('caller');
    if (caller.via !== 'api_key' || !caller.keyId) {
      throw new CairnError(
        'invalid_input',
        'This revokes the API key that sends the request ("Authorization: Bearer cairn_tkn_…"). To revoke another key, use DELETE /api/v1/keys/<id> from the portal (Settings > API Keys).',
      );
    }
    return c.json({ key: await revokeApiKey(deps, caller.keyId, caller.userId, caller) });
  });
  return routes;
}
