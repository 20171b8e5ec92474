import { Dialog } from './dialog.js';

/** Asked before a dialog that shows a new, not yet copied or downloaded key closes: the key cannot be shown again. */
export function UnsavedKeyDialog({ onKeep, onDiscard }: { onKeep: () => void; onDiscard: () => void }) {
  return (
    <Dialog
      title="You haven't saved this key"
      onClose={onKeep}
      role="alertdialog"
      footer={
        <div className="form-actions">
          <button type="button" className="button" onClick={onKeep}>
            Keep
          </button>
          <button type="button" className="button secondary danger-text" onClick={onDiscard}>
            Discard
          </button>
        </div>
      }
    >
      <p>
        You haven't saved this key: it has not been copied or downloaded. Once this closes, Cairn cannot show it again.
      </p>
      <p className="hint">
        Keep goes back to the key. A discarded key stays valid until you revoke it under Settings › API keys.
      </p>
    </Dialog>
  );
}
