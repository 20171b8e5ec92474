import { type FormEvent, useEffect, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { Datapack, Entry } from '../api/types.js';
import { ConnectDialog } from '../connect/connect-dialog.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import { Empty, ErrorNotice, Loading } from '../ui/bits.js';
import { plainPreview } from '../ui/markdown.js';
import { LoadedList, PageHead } from '../ui/page-parts.js';
import { useLoad } from '../ui/use-load.js';
import { DatapackSettingsDialog } from './datapack-settings.js';
import { ScopeBadge } from './datapacks-page.js';
import { AppliesBadges } from './entry-applies.js';
import { EntryByline } from './entry-byline.js';
import { EntryDialog, EntryFormDialog } from './entry-dialogs.js';
import { usePeople } from './people.js';
import { RulesImportDialog } from './rules-import-dialog.js';

const PAGE = 50;

/** One datapack: browse, search, add; open an entry to view, edit, delete or see its history. */
export function DatapackPage({ id, entryId }: { id: string; entryId?: string | undefined }) {
  const { me } = useSession();
  const packs = useLoad(() => api<{ datapacks: Datapack[] }>('GET', '/api/v1/datapacks'), [id]);
  const [limit, setLimit] = useState(PAGE);
  const [query, setQuery] = useState('');
  const [submitted, setSubmitted] = useState('');
  const entries = useLoad(async () => {
    if (submitted) {
      const r = await api<{ results: { entry: Entry; score: number }[] }>(
        'GET',
        `/api/v1/search?q=${encodeURIComponent(submitted)}&datapack=${encodeURIComponent(id)}&limit=50`,
      );
      return r.results.map((x) => x.entry);
    }
    return (
      await api<{ entries: Entry[] }>(
        'GET',
        `/api/v1/datapacks/${encodeURIComponent(id)}/entries?limit=${limit}&offset=0`,
      )
    ).entries;
  }, [id, limit, submitted]);
  const [open, showEntry] = useState<string | undefined>(entryId);
  // Each entry has an address (/datapacks/:id/entries/:entryId): opening one shows it in the bar, to copy or bookmark.
  const setOpen = (entry: string | undefined) => {
    showEntry(entry);
    const address = `/datapacks/${encodeURIComponent(id)}${entry ? `/entries/${encodeURIComponent(entry)}` : ''}`;
    if (window.location.pathname !== address) history.replaceState(null, '', address);
  };
  useEffect(() => showEntry(entryId), [entryId]);
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const [connecting, setConnecting] = useState(false);
  const [settings, setSettings] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();
  const name = usePeople();
  const pack = packs.data?.datapacks.find((p) => p.id === id);

  useEffect(() => {
    if (pack) document.title = `${pack.name} · Cairn`;
  }, [pack]);

  if (packs.error)
    return (
      <section className="page">
        <ErrorNotice message={packs.error} onRetry={packs.reload} />
      </section>
    );
  if (!packs.data)
    return (
      <section className="page">
        <Loading what="the datapack" />
      </section>
    );
  if (!pack) {
    return (
      <section className="page">
        <h1>Datapack not found</h1>
        <p>
          It may have been removed, or it belongs to a team you are not in. Go back to{' '}
          <Link to="/datapacks">your datapacks</Link>.
        </p>
      </section>
    );
  }

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(query.trim());
  };
  const list = entries.data;
  const deletable = pack.writable !== false && !(pack.scope === 'personal' && pack.name === 'Personal');
  const removePack = async () => {
    setDeleteError(undefined);
    try {
      await api('DELETE', `/api/v1/datapacks/${encodeURIComponent(pack.id)}`);
      navigate('/trash');
    } catch (e) {
      setDeleteError(messageOf(e));
    }
  };
  const changed = () => {
    entries.reload();
    packs.reload();
  };

  return (
    <section className="page">
      <PageHead
        crumb={{ up: <Link to="/datapacks">Datapacks</Link>, here: pack.name }}
        title={pack.name}
        intro={
          <>
            <ScopeBadge scope={pack.scope} team={me.teams.find((t) => t.id === pack.ownerId)?.name} /> ·{' '}
            {pack.entryCount ?? 0} {pack.entryCount === 1 ? 'entry' : 'entries'}
            {pack.description ? ` · ${pack.description}` : ''}
          </>
        }
        actions={
          <>
            <button type="button" className="button secondary" onClick={() => setConnecting(true)}>
              Connect a client
            </button>
            {/* A plain link: the browser downloads the JSON Lines file with the session cookie. */}
            <a className="button secondary" href={`/api/v1/export?datapack=${encodeURIComponent(pack.id)}`} download>
              Export
            </a>
            <Link className="button secondary" to={`/rules/replaced?datapack=${encodeURIComponent(pack.id)}`}>
              Replaced rules
            </Link>
            {pack.writable !== false && (
              <button type="button" className="button secondary" onClick={() => setSettings(true)}>
                Settings
              </button>
            )}
            {pack.writable !== false && (
              <button type="button" className="button secondary" onClick={() => setImporting(true)}>
                Import rule files
              </button>
            )}
            {pack.writable !== false && (
              <button type="button" className="button" onClick={() => setAdding(true)}>
                Add entry
              </button>
            )}
            {deletable && (
              <button type="button" className="button secondary danger-text" onClick={() => setDeleting(true)}>
                Delete datapack
              </button>
            )}
          </>
        }
      />
      {deleting && (
        <div className="notice warning" role="alert">
          <p>
            Delete “{pack.name}” and its {pack.entryCount ?? 0} {pack.entryCount === 1 ? 'entry' : 'entries'}? Agents
            will no longer find them; the datapack stays in the Trash, where it can be restored for a while.
          </p>
          {deleteError && <ErrorNotice message={deleteError} />}
          <div className="form-actions">
            {/* biome-ignore lint/a11y/noAutofocus: a destructive confirmation opens on its safe choice */}
            <button type="button" className="button secondary" onClick={() => setDeleting(false)} autoFocus>
              Keep it
            </button>
            <button type="button" className="button danger" onClick={() => void removePack()}>
              Delete datapack
            </button>
          </div>
        </div>
      )}
      {pack.writable === false && (
        <p className="notice" role="note">
          Read-only for you: only organization admins and owners change this datapack. Agents still follow what it says.
        </p>
      )}

      {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for some screen readers; role=search on the form is announced everywhere */}
      <form className="search" role="search" onSubmit={onSearch}>
        <label className="field grow">
          <span className="visually-hidden">Search entries</span>
          <input
            type="search"
            placeholder="Search this datapack"
            aria-label="Search entries"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              if (!e.target.value) setSubmitted('');
            }}
          />
        </label>
        <button type="submit" className="button secondary">
          Search
        </button>
        {submitted && (
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              setQuery('');
              setSubmitted('');
            }}
          >
            Clear
          </button>
        )}
      </form>

      <LoadedList
        load={entries}
        items={list}
        what="entries"
        empty={
          submitted ? (
            <Empty title={`Nothing matches “${submitted}”`}>
              <p>Try fewer or different words.</p>
            </Empty>
          ) : (
            <Empty title="No entries yet — connect a client">
              <p>
                Ask a connected agent to remember something here (
                <button type="button" className="link-button" onClick={() => setConnecting(true)}>
                  connect a client
                </button>
                ), or add an entry yourself.
              </p>
            </Empty>
          )
        }
      >
        {(list) => (
          <ul className="entries" aria-label={submitted ? 'Search results' : 'Entries'}>
            {list.map((e) => (
              <li key={e.id}>
                <button type="button" className="entry-row" onClick={() => setOpen(e.id)}>
                  <span className="entry-title">{e.title}</span>
                  <span className="entry-meta">
                    <span className={`badge kind-${e.kind}`}>{e.kind}</span>
                    <AppliesBadges entry={e} />
                    {e.tags.map((t) => (
                      <span key={t} className="tag">
                        #{t}
                      </span>
                    ))}
                    <EntryByline entry={e} name={name} />
                  </span>
                  <span className="entry-snippet">{plainPreview(e.content)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </LoadedList>
      {!submitted && list && list.length >= limit && (
        <button type="button" className="button secondary" onClick={() => setLimit((l) => l + PAGE)}>
          Show more
        </button>
      )}
      {connecting && <ConnectDialog onClose={() => setConnecting(false)} />}
      {importing && <RulesImportDialog datapackId={pack.id} onClose={() => setImporting(false)} onImported={changed} />}
      {settings && (
        <DatapackSettingsDialog
          pack={pack}
          onClose={() => setSettings(false)}
          onSaved={() => {
            setSettings(false);
            packs.reload();
          }}
        />
      )}
      {adding && (
        <EntryFormDialog
          datapackId={pack.id}
          onClose={() => setAdding(false)}
          onSaved={() => {
            setAdding(false);
            changed();
          }}
        />
      )}
      {open && (
        <EntryDialog
          id={open}
          writable={pack.writable !== false}
          onClose={() => setOpen(undefined)}
          onChanged={changed}
        />
      )}
    </section>
  );
}
