import { type ReactNode, useEffect, useId, useRef } from 'react';

/** What counts as the first field a dialog puts focus on (the × in the header comes after it). */
const FIELD =
  'input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled]), [href], [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog (native <dialog>: Escape closes, the page behind is inert). Focus goes to the first
 * field, not the ×, and returns to whatever opened the dialog when it closes.
 */
export function Dialog({
  title,
  onClose,
  children,
  wide,
  footer,
  closeOnBackdrop,
  role,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
  footer?: ReactNode;
  closeOnBackdrop?: boolean;
  role?: 'alertdialog';
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const unmounting = useRef(false);
  useEffect(() => {
    const d = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    unmounting.current = false;
    if (d && !d.open) d.showModal();
    const first =
      d?.querySelector<HTMLElement>(`:scope > .dialog-body :is(${FIELD})`) ??
      d?.querySelector<HTMLElement>(`:scope > .dialog-foot :is(${FIELD})`);
    first?.focus();
    return () => {
      unmounting.current = true;
      d?.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click closes on the backdrop; the keyboard's way out is Escape (onCancel)
    <dialog
      ref={ref}
      role={role}
      aria-labelledby={titleId}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      onCancel={(e) => {
        // React passes a nested dialog's cancel up the tree: only this dialog's own Escape closes it.
        if (e.target !== ref.current) return;
        e.preventDefault();
        onClose();
      }}
      onClose={(e) => {
        // Chromium closes without a cancelable event on a repeated Escape: reopen and let onClose decide (it may ask first).
        // A close that is ours (unmounting), or stale (already reopened, as after StrictMode's second mount), is left alone.
        if (e.target !== ref.current || unmounting.current || ref.current.open) return;
        ref.current?.showModal();
        onClose();
      }}
      onClick={(e) => {
        if (!closeOnBackdrop || e.target !== ref.current) return;
        const r = ref.current.getBoundingClientRect();
        const outside = e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom;
        if (outside) onClose();
      }}
    >
      <header className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
      {footer && <footer className="dialog-foot">{footer}</footer>}
    </dialog>
  );
}

/** A form dialog's last row: Cancel, any other buttons, then the submit button, which reads `busyLabel` while the form is sent. */
export function FormActions({
  onCancel,
  label,
  busyLabel,
  busy,
  disabled = false,
  children,
}: {
  onCancel: () => void;
  label: string;
  busyLabel: string;
  busy: boolean;
  disabled?: boolean;
  children?: ReactNode;
}) {
  return (
    <div className="form-actions">
      <button type="button" className="button secondary" onClick={onCancel}>
        Cancel
      </button>
      {children}
      <button type="submit" className="button" disabled={busy || disabled}>
        {busy ? busyLabel : label}
      </button>
    </div>
  );
}
