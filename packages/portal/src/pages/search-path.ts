/** What a search asks for; kept in the address so Back and shared links work. */
export interface SearchFilters {
  q: string;
  kind: string;
  datapack: string;
  scope: string;
  author: string;
  tags: string[];
}

/** The address of a search with these filters. */
export function searchPath(f: Partial<SearchFilters>): string {
  const p = new URLSearchParams();
  if (f.q) p.set('q', f.q);
  if (f.kind) p.set('kind', f.kind);
  if (f.datapack) p.set('datapack', f.datapack);
  if (f.scope) p.set('scope', f.scope);
  if (f.author) p.set('author', f.author);
  for (const t of f.tags ?? []) p.append('tag', t);
  const qs = p.toString();
  return qs ? `/search?${qs}` : '/search';
}
