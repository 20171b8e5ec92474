import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { KeyVerifier } from '../auth/api-keys/key-verifier.js';
import { type Auth, createAuth } from '../auth/better-auth.js';
import { OAuthTokenVerifier } from '../auth/oauth/access-tokens.js';
import { mcpResource } from '../auth/oauth/oauth-options.js';
import { OAuthUsage } from '../auth/oauth/oauth-usage.js';
import { checkPinnedClients } from '../auth/oauth/pinned-clients.js';
import type { CairnConfig } from '../config/load-config.js';
import { auditKeyExpired } from '../domain/audit.js';
import { AuditTrail } from '../domain/audit-trail.js';
import { createDomainDeps, type DomainDeps } from '../domain/deps.js';
import { TrashPurger } from '../domain/trash.js';
import { Embedder } from '../embeddings/embedder.js';
import { EmbeddingsProvider } from '../embeddings/provider.js';
import type { Admission } from '../http/admission/admission.js';
import { createHttpApp } from '../http/app.js';
import { addressKey, clientAddressResolver, handedAddress } from '../http/client-address.js';
import { Readiness } from '../http/readiness.js';
import { createLogger, type Logger } from '../log/logger.js';
import { openRateLimits, type RateLimits } from '../rate-limits/rate-limits.js';
import type { KyselyStore } from '../store/kysely-store.js';
import { openStore } from './open-store.js';

/** A running Cairn: every part wired once, and one way to shut it all down. */
export interface Cairn {
  config: CairnConfig;
  store: KyselyStore;
  auth: Auth;
  domain: DomainDeps;
  keys: KeyVerifier;
  log: Logger;
  app: Hono;
  /** The bound on work in progress (docs/overload.md); `load` says what runs and waits now. */
  admission: Admission;
  /** Keeps entries' vectors from the embeddings provider current; only with CAIRN_EMBEDDINGS_URL. */
  embedder: Embedder | undefined;
  /** Purges the trash past CAIRN_TRASH_DAYS: at start and hourly in a serving Cairn; `runNow()` on demand. */
  trash: TrashPurger;
  close(): Promise<void>;
}

/** Opens the store, applies migrations (better-auth's, then Cairn's) and wires the HTTP app. */
export async function openCairn(
  config: CairnConfig,
  options: { log?: Logger; store?: KyselyStore; background?: boolean; patient?: boolean } = {},
): Promise<Cairn> {
  const log = options.log ?? createLogger(config.logLevel);
  // Before the database is touched: a bad pinned document stops the start, naming its entry.
  const cimdPinned = checkPinnedClients(config.oauthPinnedClients, config.oauthAllowLoopback);
  const store = options.store ?? (await openStore(config, { patient: options.patient }));
  store.health.useLog(log);
  let rateLimits: RateLimits | undefined;
  try {
    const auth = await store.withStartupLock(async () => {
      // Inside the lock: on PostgreSQL this creates the shared limits' table, once for all instances.
      const limits = await openRateLimits(store, {
        ...config.rateLimits,
        captureTurnsPerMinute: config.captureTurnsPerMinute,
      });
      rateLimits = limits;
      const secret =
        config.authSecret ?? (await store.getOrInitSetting('auth_secret', randomBytes(32).toString('base64url')));
      const created = await createAuth({
        db: store.db,
        dialect: store.dialect,
        secret,
        baseUrl: config.baseUrl,
        log,
        cimdAllowLoopbackForTests: config.oauthCimdAllowLoopbackForTests,
        oauthAllowLoopback: config.oauthAllowLoopback,
        cimdBeforeFetch: (request) => limits.oauthCimdFetchesPerAddress.take(addressKey(handedAddress(request))),
        cimdPinned,
      });
      await store.migrate();
      return created;
    });
    const limits = rateLimits!;
    const embedder = config.embeddings
      ? new Embedder(store, new EmbeddingsProvider(config.embeddings), log)
      : undefined;
    store.embedder = embedder;
    // One-shot CLI commands do not embed in the background; a serving Cairn does.
    if (options.background !== false) embedder?.start();
    const audit = new AuditTrail(store, config.auditDays);
    audit.useLog(log);
    const domain = createDomainDeps(store, { trashDays: config.trashDays, audit, log });
    const trash = new TrashPurger(domain, log);
    // Like the embedder: a serving Cairn purges at start and hourly, without holding up start-up or requests.
    if (options.background !== false) trash.start();
    // A closure, not domain.now itself: tests that move the domain's clock move expiry with it.
    const keys = new KeyVerifier(store, undefined, () => domain.now(), auditKeyExpired(domain));
    const oauth = new OAuthTokenVerifier(auth, mcpResource(config.baseUrl));
    const oauthUsage = new OAuthUsage(store);
    const mcpAuth = { config, keys, oauth, oauthUsage, log };
    const readiness = new Readiness(store);
    const http = createHttpApp({
      domain,
      auth,
      mcpAuth,
      keys,
      baseUrl: config.baseUrl,
      oauthAllowLoopback: config.oauthAllowLoopback,
      oauthClientSchemes: config.oauthClientSchemes,
      limits,
      clientAddress: clientAddressResolver(config.trustedProxies),
      installerPublished: config.installerPublished,
      pluginMarketplace: config.pluginMarketplace,
      oauthPinnedClients: [...cimdPinned.keys()],
      readiness,
      log,
      overload: config.overload,
    });
    return {
      config,
      store,
      auth,
      domain,
      keys,
      log,
      app: http.app,
      admission: http.admission,
      embedder,
      trash,
      async close() {
        await http.close();
        await trash.stop();
        await embedder?.stop();
        limits.close();
        await keys.close().catch((error: Error) => log.warn('could not save key usage', { error: error.message }));
        await oauthUsage
          .close()
          .catch((error: Error) => log.warn('could not save OAuth app usage', { error: error.message }));
        await audit.close();
        await domain.ruleUsage.flush();
        await store.close();
      },
    };
  } catch (error) {
    rateLimits?.close();
    await store.close().catch(() => {});
    throw error;
  }
}
