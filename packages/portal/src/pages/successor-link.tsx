import { ApiError, api } from '../api/client.js';
import type { Entry } from '../api/types.js';
import { Link } from '../router.js';
import { useLoad } from '../ui/use-load.js';
import { entryPath } from './retired-rules.js';

/** The rule that replaced another, by its title with a link; one the reader cannot open is said so, never shown by id. */
export function SuccessorLink({ id, onOpen }: { id: string; onOpen?: () => void }) {
  const { data, error } = useLoad(async () => {
    try {
      return (await api<{ entry: Entry }>('GET', `/api/v1/entries/${encodeURIComponent(id)}`)).entry;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }, [id]);
  if (data)
    return (
      <Link to={entryPath(data.datapackId, data.id)} onClick={onOpen}>
        {data.title}
      </Link>
    );
  if (data === null) return <span>a newer rule not visible to you</span>;
  return <span>{error ? 'a newer rule (it could not be loaded)' : 'a newer rule'}</span>;
}
