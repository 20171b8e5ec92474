import { createLogger, type Logger } from '../log/logger.js';
import type { Store } from '../store/store.js';
import { AuditTrail } from './audit-trail.js';
import { DomainCaches } from './domain-caches.js';
import { RuleUsageQueue } from './rule-usage-queue.js';

/** What every domain verb needs: the store, a clock and an id source (replaceable in tests), and the trash retention. */
export interface DomainDeps {
  store: Store;
  now: () => string;
  newId: (prefix: IdPrefix) => string;
  /** Days a deleted entry or datapack stays restorable before it is purged (CAIRN_TRASH_DAYS). */
  trashDays: number;
  /** Where security- and policy-relevant events are recorded (off the request's path). */
  audit: AuditTrail;
  /** Guidance answers waiting to be written (rule-usage.ts), off the request's path. */
  ruleUsage: RuleUsageQueue;
  /** What the domain keeps between requests: these deps' own, so two Cairns in one process share nothing. */
  caches: DomainCaches;
}

/** CAIRN_TRASH_DAYS when unset. */
export const DEFAULT_TRASH_DAYS = 30;

/** Id prefixes make an id's kind obvious in logs and support requests. */
export type IdPrefix = 'dpk' | 'ent' | 'key' | 'aud';

/** Production deps: wall clock, random ids, and caches of their own. `log`: where failed background writes are reported. */
export function createDomainDeps(
  store: Store,
  options: { trashDays?: number; audit?: AuditTrail; log?: Logger } = {},
): DomainDeps {
  return {
    store,
    now: () => new Date().toISOString(),
    newId,
    trashDays: options.trashDays ?? DEFAULT_TRASH_DAYS,
    audit: options.audit ?? new AuditTrail(store),
    ruleUsage: new RuleUsageQueue(store, options.log ?? createLogger('warn')),
    caches: new DomainCaches(),
  };
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A random id such as `ent_k3x9…` (20 base36 characters, ~103 bits). */
export function newId(prefix: IdPrefix): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = `${prefix}_`;
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}
