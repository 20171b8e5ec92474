import type { RuleUsageRow } from '@cairn/contract';
import { api } from '../api/client.js';
import { Empty, ErrorNotice, Loading, When } from '../ui/bits.js';
import { PageHead } from '../ui/page-parts.js';
import { useLoad } from '../ui/use-load.js';

/** Rule usage: how often each readable rule reached an agent in 30 days, never-given first, expired apart. */
export function RuleUsagePage() {
  const { data, error, loading, reload } = useLoad(() =>
    api<{ days: number; rules: RuleUsageRow[] }>('GET', '/api/v1/rules/usage?days=30'),
  );
  const live = data?.rules.filter((r) => !r.expired) ?? [];
  const never = live.filter((r) => r.given === 0);
  const used = live.filter((r) => r.given > 0);
  const expired = data?.rules.filter((r) => r.expired) ?? [];
  return (
    <section className="page">
      <PageHead
        title="Rule usage"
        intro="How often each rule was given to an agent in full, or named as one that may also apply, in the last 30 days. Organization admins see their members' answers; everyone else sees their own."
      />
      {error && <ErrorNotice message={error} onRetry={reload} />}
      {!data && loading && <Loading what="rule usage" />}
      {data && data.rules.length === 0 && (
        <Empty title="No rules yet">
          <p>Save a policy, standard or preference and it is listed here with how often agents receive it.</p>
        </Empty>
      )}
      {never.length > 0 && (
        <>
          <h2>Never given in {data?.days} days</h2>
          <ul className="entries" aria-label="Rules never given">
            {never.map((r) => (
              <li key={r.entryId}>
                <span className="entry-title">{r.title}</span>{' '}
                <span className="muted small">named {r.named} times</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {used.length > 0 && (
        <>
          <h2>Given</h2>
          <ul className="entries" aria-label="Rules given">
            {used.map((r) => (
              <li key={r.entryId}>
                <span className="entry-title">{r.title}</span>{' '}
                <span className="muted small">
                  given {r.given} times, named {r.named} · last <When at={r.lastGivenAt!} /> · {r.clients.join(', ')}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {expired.length > 0 && (
        <>
          <h2>Expired, no longer given</h2>
          <ul className="entries" aria-label="Rules expired">
            {expired.map((r) => (
              <li key={r.entryId}>
                <span className="entry-title">{r.title}</span>{' '}
                <span className="muted small">
                  expired after {r.expires} · given {r.given} times, named {r.named}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
