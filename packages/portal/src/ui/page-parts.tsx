import type { ReactNode } from 'react';
import { ErrorNotice, Loading } from './bits.js';

/** A page's head: an optional breadcrumb (`up` / `here`), the title, one line on what the page is for, and its actions. */
export function PageHead({
  title,
  intro,
  crumb,
  actions,
}: {
  title: ReactNode;
  intro: ReactNode;
  crumb?: { up: ReactNode; here: ReactNode };
  actions?: ReactNode;
}) {
  return (
    <>
      {crumb && (
        <nav aria-label="Breadcrumb" className="crumbs">
          {crumb.up} <span aria-hidden="true">/</span> <span aria-current="page">{crumb.here}</span>
        </nav>
      )}
      <div className="page-head">
        <div>
          <h1>{title}</h1>
          <p className="muted">{intro}</p>
        </div>
        {actions && <div className="actions">{actions}</div>}
      </div>
    </>
  );
}

/** The crumb of a page under Settings. */
export const settingsCrumb = (here: ReactNode) => ({ up: <span>Settings</span>, here });

/**
 * What a loaded list shows: its error (with Try again), "Loading…" until the first answer, `empty`
 * when there is nothing, else `children` with the items. A reload keeps the list in place.
 */
export function LoadedList<T>({
  load,
  items,
  what,
  empty,
  children,
}: {
  load: { error: string | undefined; loading: boolean; reload: () => void };
  items: T[] | undefined;
  what: string;
  empty: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <>
      {load.error && <ErrorNotice message={load.error} onRetry={load.reload} />}
      {!items && load.loading && <Loading what={what} />}
      {items && items.length === 0 && empty}
      {items && items.length > 0 && children(items)}
    </>
  );
}

/** A table's header row; `actions` adds the last, unlabelled column of row buttons (named for screen readers). */
export function TableHead({
  columns,
  actions = false,
}: {
  columns: (string | { label: string; className: string })[];
  actions?: boolean;
}) {
  return (
    <thead>
      <tr>
        {columns.map((c) =>
          typeof c === 'string' ? (
            <th key={c} scope="col">
              {c}
            </th>
          ) : (
            <th key={c.label} scope="col" className={c.className}>
              {c.label}
            </th>
          ),
        )}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
