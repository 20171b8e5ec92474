import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../api/client.js';
import type { Datapack, SearchResult } from '../api/types.js';
import { Link, navigate } from '../router.js';
import { Empty, ErrorNotice, Loading } from '../ui/bits.js';
import { plainPreview } from '../ui/markdown.js';
import { useLoad } from '../ui/use-load.js';
import { EntryByline } from './entry-byline.js';
import { EntryDialog, KindOptions } from './entry-dialogs.js';
import { useMembers, usePeople } from './people.js';
import { type SearchFilters, searchPath } from './search-path.js';

/** Search every datapack you can read, narrowed by kind, datapack, scope, author and tags; a tag on a result narrows to it. */
export function SearchPage({ query }: { query: URLSearchParams }) {
  const filters: SearchFilters = {
    q: query.get('q') ?? '',
    kind: query.get('kind') ?? '',
    datapack: query.get('datapack') ?? '',
    scope: query.get('scope') ?? '',
    author: query.get('author') ?? '',
    tags: query.getAll('tag'),
  };
  const text = filters.q;
  // Filters with no words list the entries that pass them, newest first.
  const filtered = Boolean(filters.kind || filters.datapack || filters.scope || filters.author || filters.tags.length);
  const asked = Boolean(text || filtered);
  const packs = useLoad(() => api<{ datapacks: Datapack[] }>('GET', '/api/v1/datapacks'), []);
  const results = useLoad(async () => {
    if (!asked) return undefined;
    const p = new URLSearchParams({ limit: '50' });
    if (text) p.set('q', text);
    if (filters.kind) p.set('kind', filters.kind);
    if (filters.datapack) p.set('datapack', filters.datapack);
    if (filters.scope) p.set('scope', filters.scope);
    if (filters.author) p.set('author', filters.author);
    for (const t of filters.tags) p.append('tag', t);
    return (await api<{ results: SearchResult[] }>('GET', `/api/v1/search?${p}`)).results;
  }, [query.toString()]);
  const [draft, setDraft] = useState(filters.q);
  const [open, setOpen] = useState<string>();
  const name = usePeople();
  const members = useMembers();

  useEffect(() => setDraft(filters.q), [filters.q]);
  useEffect(() => {
    document.title = 'Search · Cairn';
  }, []);

  const go = (change: Partial<SearchFilters>) => navigate(searchPath({ ...filters, ...change }));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    go({ q: draft.trim() });
  };
  const writable = (datapackId: string) => packs.data?.datapacks.find((d) => d.id === datapackId)?.writable !== false;

  return (
    <section className="page">
      <div className="page-head">
        <h1>Search</h1>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for some screen readers; role=search on the form is announced everywhere */}
      <form className="search" role="search" onSubmit={onSubmit}>
        <label className="field grow">
          <span className="visually-hidden">Search all datapacks</span>
          <input
            type="search"
            placeholder="Search all your datapacks"
            aria-label="Search all datapacks"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="visually-hidden">Kind</span>
          <select aria-label="Kind" value={filters.kind} onChange={(e) => go({ kind: e.target.value })}>
            <option value="">All kinds</option>
            <KindOptions />
          </select>
        </label>
        <label className="field">
          <span className="visually-hidden">Datapack</span>
          <select aria-label="Datapack" value={filters.datapack} onChange={(e) => go({ datapack: e.target.value })}>
            <option value="">All datapacks</option>
            {packs.data?.datapacks.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="visually-hidden">Scope</span>
          <select aria-label="Scope" value={filters.scope} onChange={(e) => go({ scope: e.target.value })}>
            <option value="">All scopes</option>
            <option value="personal">Personal</option>
            <option value="team">Team</option>
            <option value="organization">Organization</option>
          </select>
        </label>
        <label className="field">
          <span className="visually-hidden">Author</span>
          <select aria-label="Author" value={filters.author} onChange={(e) => go({ author: e.target.value })}>
            <option value="">Anyone</option>
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.name || m.email}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="button secondary">
          Search
        </button>
      </form>
      {filters.tags.length > 0 && (
        <ul className="filters" aria-label="Tag filters">
          {filters.tags.map((t) => (
            <li key={t}>
              <button
                type="button"
                className="tag removable"
                aria-label={`Remove tag filter ${t}`}
                onClick={() => go({ tags: filters.tags.filter((x) => x !== t) })}
              >
                #{t} <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {results.error && <ErrorNotice message={results.error} onRetry={results.reload} />}
      {!asked && (
        <Empty title="Search every datapack you can read">Type a few words; narrow by kind, datapack or a tag.</Empty>
      )}
      {!text && filtered && results.data && results.data.length > 0 && (
        <p className="muted">Entries passing these filters, newest first.</p>
      )}
      {asked && !results.data && results.loading && <Loading what="results" />}
      {results.data && results.data.length === 0 && (
        <Empty title="Nothing found">
          <p>Try fewer or different words, or remove a filter.</p>
        </Empty>
      )}
      {results.data && results.data.length > 0 && (
        <ul className="entries" aria-label="Search results">
          {results.data.map(({ entry: e, datapack }) => (
            <li key={e.id} className="entry-row">
              <button type="button" className="entry-open" onClick={() => setOpen(e.id)}>
                <span className="entry-title">{e.title}</span>
              </button>
              <span className="entry-meta">
                <span className={`badge kind-${e.kind}`}>{e.kind}</span>
                <Link to={`/datapacks/${encodeURIComponent(datapack.id)}`} className="small">
                  {datapack.name}
                </Link>
                {e.tags.map((t) => (
                  <button
                    key={t}
                    type="button"
                    className="tag"
                    aria-label={`Only entries tagged ${t}`}
                    onClick={() => go({ tags: filters.tags.includes(t) ? filters.tags : [...filters.tags, t] })}
                  >
                    #{t}
                  </button>
                ))}
                <EntryByline entry={e} name={name} />
              </span>
              <span className="entry-snippet">{plainPreview(e.content)}</span>
            </li>
          ))}
        </ul>
      )}
      {open && (
        <EntryDialog
          id={open}
          writable={writable(results.data?.find((r) => r.entry.id === open)?.datapack.id ?? '')}
          onClose={() => setOpen(undefined)}
          onChanged={results.reload}
        />
      )}
    </section>
  );
}
