import { useState } from 'react';
import { api } from '../api/client.js';
import type { ExpiredRule, ReplacedRule } from '../api/types.js';
import { Link } from '../router.js';
import { Empty, When } from '../ui/bits.js';
import { LoadedList, PageHead } from '../ui/page-parts.js';
import { useLoad } from '../ui/use-load.js';
import {
  entryPath,
  type RetiredRule,
  type RetiredRuleDone,
  RetiredRuleList,
  RetiredRuleNotice,
} from './retired-rules.js';

/**
 * Replaced and expired rules: what agents stopped getting because a newer rule took its place
 * (Reinstate) or its expiry date passed (Renew), each where you may write.
 */
export function ReplacedRulesPage({ datapack }: { datapack?: string | undefined }) {
  const only = datapack ? `?datapack=${encodeURIComponent(datapack)}` : '';
  const load = useLoad(() => api<{ entries: ReplacedRule[] }>('GET', `/api/v1/replaced${only}`), [datapack]);
  const expired = useLoad(() => api<{ entries: ExpiredRule[] }>('GET', `/api/v1/expired${only}`), [datapack]);
  const [done, setDone] = useState<RetiredRuleDone>();
  const rules = load.data?.entries.map(replacedRow);
  const packName = load.data?.entries[0]?.datapack.name;
  return (
    <section className="page">
      <PageHead
        crumb={
          datapack
            ? {
                up: <Link to={`/datapacks/${encodeURIComponent(datapack)}`}>{packName ?? 'Datapack'}</Link>,
                here: 'Replaced rules',
              }
            : undefined
        }
        title="Replaced rules"
        intro="Rules a newer one replaced: agents no longer get them and search hides them. Reinstating one gives it to agents again; the rule that replaced it stays as it is. Expired rules are below."
      />
      {datapack && (
        <p className="small">
          Showing one datapack. <Link to="/rules/replaced">All replaced rules</Link>
        </p>
      )}
      <RetiredRuleNotice done={done} />
      <LoadedList
        load={load}
        items={rules}
        what="the replaced rules"
        empty={
          <Empty title="No replaced rules">
            <p>
              When you replace a rule with a newer one (Replace with a new rule, in the rule's window), the old one
              waits here.
            </p>
          </Empty>
        }
      >
        {(items) => (
          <RetiredRuleList
            label="Replaced rules"
            rules={items}
            onChanged={(d) => {
              setDone(d);
              load.reload();
            }}
            action={{
              label: 'Reinstate',
              busyLabel: 'Reinstating…',
              confirm: 'Agents get it again, beside the rule that replaced it. Sure?',
              run: (r) => api('POST', `/api/v1/entries/${encodeURIComponent(r.entry.id)}/reinstate`, {}),
              done: (r) => `Reinstated “${r.entry.title}”: agents get it again.`,
            }}
          />
        )}
      </LoadedList>
      <h2>Expired rules</h2>
      <p className="small muted">
        Rules past their expiry date: agents no longer get them, search still shows them. Renewing one clears the date
        (set a new one in the rule's window).
      </p>
      <LoadedList
        load={expired}
        items={expired.data?.entries.map(expiredRow)}
        what="the expired rules"
        empty={
          <Empty title="No expired rules">
            <p>A rule with an expiry date (in its window, under Lifecycle) waits here once the date has passed.</p>
          </Empty>
        }
      >
        {(items) => (
          <RetiredRuleList
            label="Expired rules"
            rules={items}
            onChanged={(d) => {
              setDone(d);
              expired.reload();
            }}
            action={{
              label: 'Renew',
              busyLabel: 'Renewing…',
              confirm: 'Agents get it again, with no expiry date. Sure?',
              run: (r) =>
                api('PATCH', `/api/v1/entries/${encodeURIComponent(r.entry.id)}`, {
                  expectedVersion: r.entry.version,
                  expires: null,
                }),
              done: (r) => `Renewed “${r.entry.title}”: agents get it again.`,
            }}
          />
        )}
      </LoadedList>
    </section>
  );
}

function expiredRow(r: ExpiredRule): RetiredRule {
  return {
    entry: r.entry,
    datapack: r.datapack,
    writable: r.writable,
    note: <>expired after {r.entry.expires}</>,
  };
}

function replacedRow(r: ReplacedRule): RetiredRule {
  return {
    entry: r.entry,
    datapack: r.datapack,
    writable: r.writable,
    note: (
      <>
        replaced <When at={r.entry.updatedAt} /> by{' '}
        {r.replacedBy ? (
          <Link to={entryPath(r.replacedBy.datapackId, r.replacedBy.id)}>{r.replacedBy.title}</Link>
        ) : (
          <span>a newer rule not visible to you</span>
        )}
      </>
    ),
  };
}
