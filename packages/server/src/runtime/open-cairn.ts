import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { KeyVerifier } from '../auth/api-keys/key-verifier.js';
import { type Auth, createAuth } from '../auth/better-auth.js';
import { OAuthTokenVerifier } from '../auth/oauth/access-tokens.js';
import { mcpResource } from '../auth/oauth/oauth-options.js';
import { OAuthUsage } from '../auth/oauth/oauth-usage.js';
import type { CairnConfig } from '../config/load-config.js';
import { purgeDeletedDatapacks } from '../domain/datapacks.js';
import { createDomainDeps, type DomainDeps } from '../domain/deps.js';
import { Embedder } from '../embeddings/embedder.js';
import { EmbeddingsProvider } from '../embeddings/provider.js';
import { createHttpApp } from '../http/app.js';
import { addressKey, clientAddressResolver, currentClientAddress } from '../http/client-address.js';
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
  /** Keeps entries' vectors from the embeddings provider current; only with CAIRN_EMBEDDINGS_URL. */
  embedder: Embedder | undefined;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** Datapacks deleted longer ago than the trash keeps them go for good: now, then daily; never in a request's way. */
function startPurges(domain: DomainDeps, log: Logger): NodeJS.Timeout {
  const run = () =>
    purgeDeletedDatapacks(domain).then(
      (n) => n > 0 && log.info('purged deleted datapacks past their restore window', { datapacks: n }),
      (error: Error) => log.warn('could not purge deleted datapacks; trying again tomorrow', { error: error.message }),
    );
  void run();
  const timer = setInterval(run, DAY_MS);
  timer.unref();
  return timer;
}

/** Opens the store, applies migrations (better-auth's, then Cairn's) and wires the HTTP app. */
export async function openCairn(config: CairnConfig, options: { log?: Logger; store?: KyselyStore; background?: boolean } = {}): Promise<Cairn> {
  const log = options.log ?? createLogger(config.logLevel);
  const store = options.store ?? openStore(config);
  store.health.useLog(log);
  let rateLimits: RateLimits | undefined;
  try {
    const auth = await store.withStartupLock(async () => {
      // Inside the lock: on PostgreSQL this creates the shared limits' table, once for all instances.
      const limits = await openRateLimits(store, { ...config.rateLimits, captureTurnsPerMinute: config.captureTurnsPerMinute });
      rateLimits = limits;
      const secret = config.authSecret ?? (await store.getOrInitSetting('auth_secret', randomBytes(32).toString('base64url')));
      const created = await createAuth({
        db: store.db,
        dialect: store.dialect,
        secret,
        baseUrl: config.baseUrl,
        log,
        cimdAllowLoopbackForTests: config.oauthCimdAllowLoopbackForTests,
        oauthAllowLoopback: config.oauthAllowLoopback,
        cimdBeforeFetch: () => limits.oauthCimdFetchesPerAddress.take(addressKey(currentClientAddress())),
      });
      await store.migrate();
      return created;
    });
    const limits = rateLimits!;
    const embedder = config.embeddings ? new Embedder(store, new EmbeddingsProvider(config.embeddings), log) : undefined;
    store.embedder = embedder;
    // One-shot CLI commands do not embed in the background; a serving Cairn does.
    if (options.background !== false) embedder?.start();
    const domain = createDomainDeps(store);
    const purge = options.background === false ? undefined : startPurges(domain, log);
    // A closure, not domain.now itself: tests that move the domain's clock move expiry with it.
    const keys = new KeyVerifier(store, undefined, () => domain.now());
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
      readiness,
      log,
    });
    return {
      config,
      store,
      auth,
      domain,
      keys,
      log,
      app: http.app,
      embedder,
      async close() {
        await http.close();
        if (purge) clearInterval(purge);
        await embedder?.stop();
        limits.close();
        await keys.close().catch((error: Error) => log.warn('could not save key usage', { error: error.message }));
        await oauthUsage.close().catch((error: Error) => log.warn('could not save OAuth app usage', { error: error.message }));
        await store.close();
      },
    };
  } catch (error) {
    rateLimits?.close();
    await store.close().catch(() => {});
    throw error;
  }
}
