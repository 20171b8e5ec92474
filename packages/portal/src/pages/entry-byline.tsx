import type { Entry } from '../api/types.js';
import { When } from '../ui/bits.js';
import { clientLabel } from './people.js';

/** An entry's version, who last changed it through which client, and when (as lists show it). */
export function EntryByline({ entry: e, name }: { entry: Entry; name: (userId: string | null | undefined) => string }) {
  const client = clientLabel(e.updatedClient ?? e.createdClient);
  return (
    <span className="muted small">
      v{e.version} · {name(e.updatedBy ?? e.createdBy)}
      {client ? ` via ${client}` : ''} · <When at={e.updatedAt} />
    </span>
  );
}
