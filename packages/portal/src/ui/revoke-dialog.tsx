import { useState } from 'react';
import { api, messageOf } from '../api/client.js';
import { ErrorNotice } from './bits.js';
import { Dialog } from './dialog.js';

/** Asks before revoking something, then sends the DELETE; a refusal is shown in the dialog. */
export function RevokeDialog({
  name,
  explanation,
  path,
  confirmLabel,
  onClose,
  onRevoked,
}: {
  name: string;
  explanation: string;
  path: string;
  confirmLabel: string;
  onClose: () => void;
  onRevoked: () => void;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const revoke = async () => {
    setBusy(true);
    try {
      await api('DELETE', path);
      onRevoked();
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Revoke “${name}”?`} onClose={onClose}>
      <p>{explanation}</p>
      {error && <ErrorNotice message={error} />}
      <div className="form-actions">
        {/* biome-ignore lint/a11y/noAutofocus: a destructive confirmation opens on its safe choice */}
        <button type="button" className="button secondary" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={revoke} disabled={busy}>
          {busy ? 'Revoking…' : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

/** The row button that opens a RevokeDialog, named for what it revokes. */
export function RevokeButton({ name, onClick }: { name: string; onClick: () => void }) {
  return (
    <button
      type="button"
      className="button secondary small danger-text"
      aria-label={`Revoke ${name}`}
      onClick={onClick}
    >
      Revoke
    </button>
  );
}
