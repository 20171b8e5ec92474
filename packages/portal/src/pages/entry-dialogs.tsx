import { diffWords } from 'diff';
import { type FormEvent, useState } from 'react';
import { ApiError, api, messageOf } from '../api/client.js';
import { ENTRY_KINDS, type Entry, type EntryVersion } from '../api/types.js';
import { Link } from '../router.js';
import { ErrorNotice, Loading, When } from '../ui/bits.js';
import { Dialog, FormActions } from '../ui/dialog.js';
import { Markdown } from '../ui/markdown.js';
import { useLoad } from '../ui/use-load.js';
import { AppliesFields, appliesFromForm } from './entry-applies.js';
import { LifecycleFields, lifecycleFromForm } from './entry-lifecycle.js';
import { clientLabel, usePeople } from './people.js';
import { searchPath } from './search-path.js';
import { SuccessorLink } from './successor-link.js';

const parseTags = (s: string) => [
  ...new Set(
    s
      .split(/[,\s]+/)
      .map((t) => t.replace(/^#/, '').trim())
      .filter(Boolean),
  ),
];

/** Adds an entry, edits one (with its version, so a concurrent change is caught), or replaces one with a new rule. */
export function EntryFormDialog({
  datapackId,
  entry,
  replaces,
  onClose,
  onSaved,
}: {
  datapackId: string;
  entry?: Entry;
  /** A rule the new one replaces: the form starts from it, and saving marks it replaced. */
  replaces?: Entry;
  onClose: () => void;
  onSaved: (e: Entry) => void;
}) {
  const start = entry ?? replaces;
  const [error, setError] = useState<string>();
  const [duplicate, setDuplicate] = useState<{ entry: Entry; similarity: number; exact: boolean }>();
  const [busy, setBusy] = useState(false);
  const submit = async (ev: FormEvent<HTMLFormElement>) => {
    ev.preventDefault();
    // "Save anyway" after a near-duplicate was shown: the user read it and says theirs is different.
    const allowSimilar = (ev.nativeEvent as SubmitEvent).submitter?.getAttribute('name') === 'allow-similar';
    const f = new FormData(ev.currentTarget);
    const fields = {
      kind: String(f.get('kind')),
      title: String(f.get('title') ?? '').trim(),
      content: String(f.get('content') ?? '').trim(),
      tags: parseTags(String(f.get('tags') ?? '')),
      applies: appliesFromForm(f),
      ...lifecycleFromForm(f, entry),
    };
    setBusy(true);
    setError(undefined);
    try {
      if (entry) {
        const r = await api<{ entry: Entry }>('PATCH', `/api/v1/entries/${entry.id}`, {
          expectedVersion: entry.version,
          ...fields,
        });
        onSaved(r.entry);
      } else {
        const r = await api<{ entry: Entry }>('POST', '/api/v1/entries', {
          datapack: datapackId,
          ...fields,
          ...(replaces && { supersedes: [replaces.id] }),
          ...(allowSimilar && { allowSimilar }),
        });
        onSaved(r.entry);
      }
    } catch (e) {
      if (e instanceof ApiError && e.code === 'duplicate') {
        const refused = e.body as { entry: Entry; similarity?: number; exact?: boolean };
        setDuplicate({ entry: refused.entry, similarity: refused.similarity ?? 1, exact: refused.exact === true });
        setBusy(false);
        return;
      }
      setError(
        e instanceof ApiError && e.code === 'version_conflict'
          ? 'Someone changed this entry while you were editing. Close this dialog, open the entry again to see their change, then redo yours.'
          : messageOf(e),
      );
      setBusy(false);
    }
  };
  return (
    <Dialog title={entry ? 'Edit entry' : replaces ? 'Replace with a new rule' : 'Add entry'} onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        {replaces && (
          <p className="notice" role="note">
            Saving replaces “{replaces.title}”: agents stop getting it and search hides it; it stays in{' '}
            <Link to={`/rules/replaced?datapack=${encodeURIComponent(replaces.datapackId)}`}>Replaced rules</Link>,
            where it can be reinstated.
          </p>
        )}
        <div className="form-grid">
          <label className="field grow">
            <span>Title</span>
            <input name="title" required maxLength={200} defaultValue={start?.title} autoFocus />
          </label>
          <label className="field">
            <span>Kind</span>
            <select name="kind" aria-label="Kind" defaultValue={start?.kind ?? 'note'}>
              <KindOptions />
            </select>
          </label>
        </div>
        <label className="field">
          <span>
            Content <span className="muted">(Markdown: **bold**, - lists, `code`, [links](https://…))</span>
          </span>
          <textarea name="content" required rows={8} defaultValue={start?.content} />
        </label>
        <label className="field">
          <span>
            Tags <span className="muted">(comma or space separated)</span>
          </span>
          <input name="tags" defaultValue={start?.tags.join(', ')} placeholder="typescript, testing" />
        </label>
        <AppliesFields entry={start} />
        <LifecycleFields entry={entry} />
        {duplicate && (
          <div className="notice warning" role="alert">
            <p>
              {duplicate.exact
                ? `Not saved: the entry “${duplicate.entry.title}” already holds exactly this. Edit that entry instead.`
                : `Not saved: this is ${Math.round(duplicate.similarity * 100)}% like the existing entry “${duplicate.entry.title}”. Edit that entry if yours says the same; if it is different knowledge, save it anyway.`}
            </p>
            {!duplicate.exact && (
              <p className="muted">
                Existing: {duplicate.entry.content.slice(0, 300)}
                {duplicate.entry.content.length > 300 ? '…' : ''}
              </p>
            )}
          </div>
        )}
        {error && <ErrorNotice message={error} />}
        <FormActions
          onCancel={onClose}
          label={entry ? 'Save changes' : replaces ? 'Save and replace' : 'Add entry'}
          busyLabel="Saving…"
          busy={busy}
        >
          {duplicate && !duplicate.exact && (
            <button type="submit" name="allow-similar" className="button secondary" disabled={busy}>
              Save anyway
            </button>
          )}
        </FormActions>
      </form>
    </Dialog>
  );
}

/** The kinds an entry can have, as a select's options. */
export function KindOptions() {
  return ENTRY_KINDS.map((k) => (
    <option key={k} value={k}>
      {k}
    </option>
  ));
}

/** One entry: content, provenance, history; edit and delete. */
export function EntryDialog({
  id,
  writable = true,
  onClose,
  onChanged,
}: {
  id: string;
  writable?: boolean;
  onClose: () => void;
  onChanged: () => void;
}) {
  const { data, error, reload } = useLoad(
    () =>
      api<{ entry: Entry; history?: EntryVersion[] }>('GET', `/api/v1/entries/${encodeURIComponent(id)}?history=true`),
    [id],
  );
  const [mode, setMode] = useState<'view' | 'edit' | 'replace' | 'delete'>('view');
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string>();
  const [restored, setRestored] = useState<string>();
  const name = usePeople();
  if ((mode === 'edit' || mode === 'replace') && data) {
    return (
      <EntryFormDialog
        datapackId={data.entry.datapackId}
        {...(mode === 'edit' ? { entry: data.entry } : { replaces: data.entry })}
        onClose={() => setMode('view')}
        onSaved={() => {
          setMode('view');
          reload();
          onChanged();
        }}
      />
    );
  }
  const entry = data?.entry;
  const remove = async () => {
    if (!entry) return;
    setBusy(true);
    try {
      await api('DELETE', `/api/v1/entries/${entry.id}?expectedVersion=${entry.version}`);
      onChanged();
      onClose();
    } catch (e) {
      setActionError(
        e instanceof ApiError && e.code === 'version_conflict'
          ? 'Someone changed this entry just now. Look at their change below, then delete again if you still want to.'
          : messageOf(e),
      );
      setBusy(false);
      setMode('view');
      reload();
    }
  };
  const restoreVersion = async (version: number) => {
    if (!entry) return;
    setBusy(true);
    setActionError(undefined);
    setRestored(undefined);
    try {
      const r = await api<{ entry: Entry }>('POST', `/api/v1/entries/${encodeURIComponent(entry.id)}/restore`, {
        version,
      });
      setRestored(
        `Version ${version} restored as version ${r.entry.version}; the versions in between stay in the history.`,
      );
      reload();
      onChanged();
    } catch (e) {
      setActionError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const reinstate = async () => {
    if (!entry) return;
    setBusy(true);
    setActionError(undefined);
    setRestored(undefined);
    try {
      await api('POST', `/api/v1/entries/${encodeURIComponent(entry.id)}/reinstate`, {});
      setRestored('Reinstated: agents get this rule again.');
      reload();
      onChanged();
    } catch (e) {
      setActionError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const history = [...(data?.history ?? [])].sort((a, b) => b.version - a.version);
  return (
    <Dialog title={entry?.title ?? 'Entry'} onClose={onClose} wide>
      {error && <ErrorNotice message={error} onRetry={reload} />}
      {!data && !error && <Loading what="the entry" />}
      {entry && (
        <div className="entry-view">
          <p className="entry-meta">
            <span className={`badge kind-${entry.kind}`}>{entry.kind}</span>
            {entry.tags.map((t) => (
              <Link
                key={t}
                to={searchPath({ tags: [t] })}
                className="tag"
                aria-label={`All entries tagged ${t}`}
                onClick={onClose}
              >
                #{t}
              </Link>
            ))}
            <span className="muted small">version {entry.version}</span>
          </p>
          {entry.replacedBy && (
            <p className="notice warning" role="status">
              Replaced by <SuccessorLink id={entry.replacedBy} />: agents no longer get it.{' '}
              {writable !== false && (
                <button
                  type="button"
                  className="button secondary small"
                  disabled={busy}
                  onClick={() => void reinstate()}
                >
                  {busy ? 'Reinstating…' : 'Reinstate'}
                </button>
              )}{' '}
              <Link to={`/rules/replaced?datapack=${encodeURIComponent(entry.datapackId)}`}>Replaced rules</Link>
            </p>
          )}
          {entry.applies?.when && <p className="muted small">Needed when: {entry.applies.when}</p>}
          {entry.applies &&
            (entry.applies.always || entry.applies.files.length > 0 || entry.applies.projects.length > 0) && (
              <p className="muted small">
                When agents get it: given{' '}
                {[
                  entry.applies.always && 'with every task',
                  entry.applies.files.length > 0 && `for files ${entry.applies.files.join(', ')}`,
                  entry.applies.projects.length > 0 && `in ${entry.applies.projects.join(', ')}`,
                ]
                  .filter(Boolean)
                  .join('; ')}
              </p>
            )}
          <Markdown className="entry-content" text={entry.content} />
          <dl className="provenance">
            <dt>Saved by</dt>
            <dd>
              {name(entry.createdBy)}
              {entry.createdClient ? ` from ${clientLabel(entry.createdClient)}` : ''}, <When at={entry.createdAt} />
            </dd>
            {entry.version > 1 && (
              <>
                <dt>Last changed by</dt>
                <dd>
                  {name(entry.updatedBy)}
                  {entry.updatedClient ? ` from ${clientLabel(entry.updatedClient)}` : ''},{' '}
                  <When at={entry.updatedAt} />
                </dd>
              </>
            )}
          </dl>
          {actionError && <ErrorNotice message={actionError} />}
          {restored && (
            <p className="notice success" role="status">
              {restored}
            </p>
          )}
          {mode === 'delete' ? (
            <div className="notice warning" role="alert">
              <p>
                Delete “{entry.title}”? Agents will no longer find it; it stays in the Trash, where it can be restored
                for a while.
              </p>
              <div className="form-actions">
                {/* biome-ignore lint/a11y/noAutofocus: a destructive confirmation opens on its safe choice */}
                <button type="button" className="button secondary" onClick={() => setMode('view')} autoFocus>
                  Keep it
                </button>
                <button type="button" className="button danger" onClick={remove} disabled={busy}>
                  {busy ? 'Deleting…' : 'Delete entry'}
                </button>
              </div>
            </div>
          ) : !writable ? null : (
            <div className="form-actions start">
              <button
                type="button"
                className="button"
                onClick={() => {
                  setActionError(undefined);
                  setMode('edit');
                }}
              >
                Edit
              </button>
              {!entry.replacedBy && (
                <button type="button" className="button secondary" onClick={() => setMode('replace')}>
                  Replace with a new rule
                </button>
              )}
              <button type="button" className="button secondary danger-text" onClick={() => setMode('delete')}>
                Delete
              </button>
            </div>
          )}
          <section className="history" aria-label="Version history">
            <h3>Version history</h3>
            <ol reversed>
              {history.map((v) => {
                const before = history.find((p) => p.version === v.version - 1);
                return (
                  <li key={v.version}>
                    <details>
                      <summary>
                        <strong>v{v.version}</strong>{' '}
                        {v.change === 'restore' && v.restoredFrom ? `restore of v${v.restoredFrom}` : v.change} by{' '}
                        {name(v.changedBy)}
                        {v.changedClient ? ` from ${clientLabel(v.changedClient)}` : ''}, <When at={v.changedAt} />
                      </summary>
                      <div className="history-body">
                        {before ? (
                          <>
                            <p className="muted small">Compared with version {before.version}:</p>
                            <p className="strong">
                              <WordDiff
                                before={before.title}
                                after={v.title}
                                label={`Title changes in version ${v.version}`}
                              />
                            </p>
                            {before.applies && v.applies && (
                              <p className="small">
                                <WordDiff
                                  before={appliesText(before.applies)}
                                  after={appliesText(v.applies)}
                                  label={`Applicability changes in version ${v.version}`}
                                />
                              </p>
                            )}
                            <div className="entry-content small">
                              <WordDiff
                                before={before.content}
                                after={v.content}
                                label={`Content changes in version ${v.version}`}
                              />
                            </div>
                          </>
                        ) : (
                          <>
                            <p className="strong">{v.title}</p>
                            <Markdown className="entry-content small" text={v.content} headingBase={3} />
                          </>
                        )}
                        {writable && v.version < entry.version && v.change !== 'delete' && (
                          <div className="form-actions start">
                            <button
                              type="button"
                              className="button secondary small"
                              disabled={busy}
                              onClick={() => void restoreVersion(v.version)}
                            >
                              Restore this version
                            </button>
                          </div>
                        )}
                      </div>
                    </details>
                  </li>
                );
              })}
            </ol>
          </section>
        </div>
      )}
    </Dialog>
  );
}

/** What changed between two texts, word by word: added words in <ins>, removed ones in <del>. */
/** Where a version applied, in words, so history can show a change of it. */
export function appliesText(a: NonNullable<EntryVersion['applies']>): string {
  const parts = [
    a.always && 'always',
    a.files.length > 0 && `files: ${a.files.join(', ')}`,
    a.projects.length > 0 && `projects: ${a.projects.join(', ')}`,
    a.when && `when: ${a.when}`,
  ].filter(Boolean);
  return `Applies ${parts.length > 0 ? parts.join('; ') : 'by its topic only'}`;
}

export function WordDiff({ before, after, label }: { before: string; after: string; label: string }) {
  if (before === after) return <span className="diff">{after}</span>;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is a labelled run of text inside a paragraph
    <span className="diff" role="group" aria-label={label}>
      {diffWords(before, after).map((part, i) =>
        part.added ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one diff never reorder
          <ins key={i}>{part.value}</ins>
        ) : part.removed ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one diff never reorder
          <del key={i}>{part.value}</del>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one diff never reorder
          <span key={i}>{part.value}</span>
        ),
      )}
    </span>
  );
}
