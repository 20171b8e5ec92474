import type { ImportCounts } from '@cairn/contract';
import { type RedactionFinding, redact } from '@cairn/contract/redaction';
import type { RuleUsageItem, RuleUsageRecord } from '../store/rule-usage-store.js';
import type { Datapack } from '../store/types.js';
import type { Access } from './access.js';
import type { DomainDeps } from './deps.js';
import type { UsageLine } from './export-format.js';
import type { NameDirectory } from './export-names.js';

/** Usage lines checked against the store and written per this many. */
const BATCH = 500;

/** Where an entry of the file landed here: its datapack and its title as imported. */
export type Landed = Map<string, { datapack: Datapack; title: string }>;

/**
 * The usage lines of an import, written in batches as they are read (they follow the entries, so
 * every entry they name has landed or been skipped by then). An answer keeps its id, so importing
 * the same file again leaves those already here unchanged; it names only rules whose entries landed
 * here, and is skipped when none did. Its organizations are those of the team and organization
 * datapacks its rules landed in, so their admins count it; its user is found by email, as authors
 * are. A caller's import (the JSON API) keeps only the caller's own answers, as it keeps turns.
 */
export class UsageImport {
  readonly counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0 };
  /** Answers skipped because they were given to someone else (a caller's import only). */
  othersSkipped = 0;
  private pending: UsageLine[] = [];

  constructor(
    private readonly deps: DomainDeps,
    private readonly names: NameDirectory,
    private readonly landed: Landed,
    private readonly findings: RedactionFinding[],
    private readonly options: { dryRun: boolean; access: Access | undefined },
  ) {}

  async add(line: UsageLine): Promise<void> {
    this.pending.push(line);
    if (this.pending.length >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const stored = await this.deps.store.storedRuleUsageIds(batch.map((u) => u.id));
    const records: RuleUsageRecord[] = [];
    for (const u of batch) {
      if (stored.has(u.id)) this.counts.unchanged += 1;
      else {
        const record = await this.record(u);
        if (record) records.push(record);
        else this.counts.skipped += 1;
      }
    }
    this.counts.created += records.length;
    if (!this.options.dryRun) await this.deps.store.appendRuleUsage(records);
  }

  private async record(u: UsageLine): Promise<RuleUsageRecord | undefined> {
    const { access } = this.options;
    const own = access?.user && access.user.email.toLowerCase() === u.user.toLowerCase();
    if (access && !own) {
      this.othersSkipped += 1;
      return undefined;
    }
    const organizations = new Set<string>();
    const items = (list: UsageLine['given']): RuleUsageItem[] =>
      list.flatMap((i) => {
        const here = this.landed.get(i.entry);
        if (!here) return [];
        if (here.datapack.scope !== 'personal' && here.datapack.organizationId)
          organizations.add(here.datapack.organizationId);
        return [{ id: i.entry, title: here.title, reason: this.clean(i.reason) }];
      });
    const given = items(u.given);
    const named = items(u.named);
    if (given.length + named.length === 0) return undefined;
    return {
      id: u.id,
      // Stored times compare as text: one spelling, UTC.
      at: new Date(u.at).toISOString(),
      userId: access ? access.caller.userId : await this.names.person(u.user),
      organizationIds: [...organizations].sort(),
      client: u.client === null ? null : this.clean(u.client),
      session: null,
      task: '',
      given,
      named,
    };
  }

  private clean(text: string): string {
    const r = redact(text);
    this.findings.push(...r.findings);
    return r.text;
  }
}
