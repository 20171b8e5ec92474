import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { Datapack } from '../api/types.js';
import { ErrorNotice } from '../ui/bits.js';
import { Dialog } from '../ui/dialog.js';

/** Rename or redescribe a datapack (Delete datapack, beside it, moves it to the Trash). */
export function DatapackSettingsDialog({
  pack,
  onClose,
  onSaved,
}: {
  pack: Datapack;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
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
      await api('PATCH', `/api/v1/datapacks/${encodeURIComponent(pack.id)}`, {
        name: String(f.get('name') ?? '').trim(),
        description: String(f.get('description') ?? ''),
      });
      onSaved();
    });
  };
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
    </Dialog>
  );
}
