import { BoundedCache } from '../cache/bounded-cache.js';
import { EpochCache } from '../cache/epoch-cache.js';
import type { Datapack, Entry, Memberships, UserRecord } from '../store/types.js';
import type { RuleVectors } from './guidance-conflicts.js';
import type { RuleIndex, RuleWords } from './guidance-rank.js';

/**
 * What the domain keeps between requests, one per DomainDeps (createDomainDeps makes it, so each
 * Cairn has its own and two in one process share nothing). Every part is bounded or weakly keyed
 * by an object this Cairn made.
 */
export class DomainCaches {
  /**
   * Memberships and the account per user, kept until the access epoch moves (cache/epoch-cache.ts;
   * the user table is an access table).
   */
  readonly access = new EpochCache<{ memberships: Memberships; user: Readonly<UserRecord> | undefined }>();
  /** Every datapack a caller can read, per Memberships object (which `access` keeps until the epoch moves). */
  readonly readable = new WeakMap<Memberships, Promise<readonly Datapack[]>>();
  /**
   * A rule's stemmed words per field, by id and version: each caller's rulebook is indexed on its
   * own (the rules it can read), and the same rules come back in every one of them, so their words
   * are stemmed once (a cold index is mostly stemming: docs/benchmarks.md).
   */
  readonly ruleWords = new BoundedCache<string, RuleWords>(5_000);
  /** A rule's title and whole-text vectors by id and version: the same rules come back task after task (about 1 KB each). */
  readonly ruleVectors = new BoundedCache<string, RuleVectors>(5_000);
  /** The rulebook's index, built once per state of the rules (the store hands back the same array while they are unchanged). */
  readonly rulebooks = new WeakMap<readonly Entry[], RuleIndex>();

  /** How many things the bounded parts hold now (for tests: what a call filled, and in which Cairn). */
  held(): { ruleWords: number; ruleVectors: number } {
    return { ruleWords: this.ruleWords.size, ruleVectors: this.ruleVectors.size };
  }
}
