import { useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { Trash } from '../api/types.js';
import { Link } from '../router.js';
import { ConfirmInline, Empty, ErrorNotice, Loading, When } from '../ui/bits.js';
import { plainPreview } from '../ui/markdown.js';
import { PageHead } from '../ui/page-parts.js';
import { useLoad } from '../ui/use-load.js';
import { ScopeBadge } from './datapacks-page.js';
import { usePeople } from './people.js';

/** Trash: deleted entries and datapacks you can read, with Restore where you may write. */
export function TrashPage() {
  const { data, error, loading, reload } = useLoad(() => api<Trash>('GET', '/api/v1/trash'));
  const [busy, setBusy] = useState<string>();
  const [done, setDone] = useState<{ text: string; to: string }>();
  const [actionError, setActionError] = useState<string>();
  const name = usePeople();

  const restore = async (what: 'entries' | 'datapacks', id: string, label: string, to: string) => {
    setBusy(id);
    setActionError(undefined);
    setDone(undefined);
    try {
      await api('POST', `/api/v1/${what}/${encodeURIComponent(id)}/restore`, {});
      setDone({ text: `Restored “${label}”.`, to });
      reload();
    } catch (e) {
      setActionError(messageOf(e));
    } finally {
      setBusy(undefined);
    }
  };

  const [confirming, setConfirming] = useState<string>();
  const deleteForever = async (id: string, label: string) => {
    setBusy(id);
    setActionError(undefined);
    setDone(undefined);
    try {
      await api('DELETE', `/api/v1/trash/entries/${encodeURIComponent(id)}`);
      setDone({ text: `Deleted “${label}” for good.`, to: '' });
      setConfirming(undefined);
      reload();
    } catch (e) {
      setActionError(messageOf(e));
    } finally {
      setBusy(undefined);
    }
  };

  const empty = data && data.entries.length === 0 && data.datapacks.length === 0;
  return (
    <section className="page">
      <PageHead
        title="Trash"
        intro={`Deleted entries and datapacks stay here for ${data?.retentionDays ?? 30} days, then they are deleted for good. Restoring one brings it back for your agents at once.`}
      />
      {done && (
        <p className="notice success" role="status">
          {done.text} {done.to && <Link to={done.to}>Open it</Link>}
        </p>
      )}
      {actionError && <ErrorNotice message={actionError} />}
      {error && <ErrorNotice message={error} onRetry={reload} />}
      {!data && loading && <Loading what="the trash" />}
      {empty && (
        <Empty title="The trash is empty">
          <p>When you or an agent delete an entry or a datapack, it waits here and can be restored.</p>
        </Empty>
      )}
      {data && data.datapacks.length > 0 && (
        <>
          <h2>Datapacks</h2>
          <ul className="entries" aria-label="Deleted datapacks">
            {data.datapacks.map((d) => (
              <li key={d.id} className="trash-row">
                <div className="trash-text">
                  <span className="entry-title">{d.name}</span>
                  <span className="entry-meta">
                    <ScopeBadge scope={d.scope} />
                    <span className="muted small">
                      {d.entryCount} {d.entryCount === 1 ? 'entry' : 'entries'} · deleted by {name(d.deletedBy)}{' '}
                      <When at={d.deletedAt} /> · deleted for good on <PurgeDate at={d.purgeAt} />
                    </span>
                  </span>
                </div>
                {d.writable && (
                  <button
                    type="button"
                    className="button secondary small"
                    aria-label={`Restore datapack ${d.name}`}
                    disabled={busy === d.id}
                    onClick={() => void restore('datapacks', d.id, d.name, `/datapacks/${d.id}`)}
                  >
                    {busy === d.id ? 'Restoring…' : 'Restore'}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {data && data.entries.length > 0 && (
        <>
          <h2>Entries</h2>
          <ul className="entries" aria-label="Deleted entries">
            {data.entries.map((t) => (
              <li key={t.entry.id} className="trash-row">
                <div className="trash-text">
                  <span className="entry-title">{t.entry.title}</span>
                  <span className="entry-meta">
                    <span className={`badge kind-${t.entry.kind}`}>{t.entry.kind}</span>
                    <span className="muted small">
                      in <Link to={`/datapacks/${t.datapack.id}`}>{t.datapack.name}</Link> · deleted by{' '}
                      {name(t.deletedBy)} <When at={t.deletedAt} /> · deleted for good on <PurgeDate at={t.purgeAt} />
                    </span>
                  </span>
                  <span className="entry-snippet">{plainPreview(t.entry.content)}</span>
                </div>
                {t.writable && confirming !== t.entry.id && (
                  <span className="trash-actions">
                    <button
                      type="button"
                      className="button secondary small"
                      aria-label={`Restore ${t.entry.title}`}
                      disabled={busy === t.entry.id}
                      onClick={() => void restore('entries', t.entry.id, t.entry.title, `/datapacks/${t.datapack.id}`)}
                    >
                      {busy === t.entry.id ? 'Restoring…' : 'Restore'}
                    </button>
                    <button
                      type="button"
                      className="button danger small"
                      aria-label={`Delete ${t.entry.title} forever`}
                      disabled={busy === t.entry.id}
                      onClick={() => setConfirming(t.entry.id)}
                    >
                      Delete forever
                    </button>
                  </span>
                )}
                {t.writable && confirming === t.entry.id && (
                  <ConfirmInline
                    label={`Delete ${t.entry.title} for good?`}
                    question="Gone for good, with every version. Sure?"
                    yes="Yes, delete forever"
                    busyLabel="Deleting…"
                    busy={busy === t.entry.id}
                    danger
                    onYes={() => void deleteForever(t.entry.id, t.entry.title)}
                    onCancel={() => setConfirming(undefined)}
                  />
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** The day the purge removes it (a future date, which When's "… ago" cannot say). */
function PurgeDate({ at }: { at: string }) {
  const d = new Date(at);
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()}>
      {d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}
    </time>
  );
}
