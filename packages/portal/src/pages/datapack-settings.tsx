import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { Datapack } from '../api/types.js';
import { navigate } from '../router.js';
import { ErrorNotice } from '../ui/bits.js';
import { Dialog } from '../ui/dialog.js';

/** Rename, redescribe or delete a datapack (deleting keeps it restorable from the Datapacks page for 30 days). */
export function DatapackSettingsDialog({ pack, onClose, onSaved }: { pack: Datapack; onClose: () => void; onSaved: () => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };
  const save = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    void run(async () => {
      await api('PATCH', `/api/v1/datapacks/${encodeURIComponent(pack.id)}`, { name: String(f.get('name') ?? '').trim(), description: String(f.get('description') ?? '') });
      onSaved();
    });
  };
  const remove = () =>
    run(async () => {
      await api('DELETE', `/api/v1/datapacks/${encodeURIComponent(pack.id)}`);
      navigate('/datapacks');
    });
  return (
    <Dialog title="Datapack settings" onClose={onClose}>
      <form className="stack" onSubmit={save}>
        <label className="field">
          <span>Name</span>
          <input name="name" required maxLength={80} defaultValue={pack.name} />
        </label>
        <label className="field">
          <span>Description</span>
          <textarea name="description" rows={3} maxLength={500} defaultValue={pack.description ?? ''} />
        </label>
        {error && <ErrorNotice message={error} />}
        <div className="actions">
          <button type="submit" className="button" disabled={busy}>
            Save
          </button>
        </div>
      </form>
      <div className="subsection">
        <h3>Delete this datapack</h3>
        <p className="muted">
          Its {pack.entryCount ?? 0} {pack.entryCount === 1 ? 'entry goes' : 'entries go'} with it, out of every agent's reach. You can restore it from the Datapacks page for 30 days.
        </p>
        {deleting ? (
          <div className="actions">
            <button type="button" className="button danger" disabled={busy} onClick={() => void remove()}>
              Delete “{pack.name}”
            </button>
            <button type="button" className="button secondary" onClick={() => setDeleting(false)}>
              Keep it
            </button>
          </div>
        ) : (
          <button type="button" className="button secondary danger-text" onClick={() => setDeleting(true)}>
            Delete datapack…
          </button>
        )}
      </div>
    </Dialog>
  );
}
