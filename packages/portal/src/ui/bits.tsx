import { type ReactNode, useId, useState } from 'react';

/** Copies text; says so for a moment (and to screen readers). */
/** What the copy button shows, and its accessible name, which always contains the shown words (axe: label-content-name-mismatch). */
export function copyButtonText(label: string, state: 'idle' | 'copied' | 'failed'): { shown: string; name: string } {
  const what = label.replace(/^Copy\b\s*/i, '');
  if (state === 'copied') return { shown: 'Copied', name: what ? `Copied ${what}` : 'Copied' };
  if (state === 'failed')
    return { shown: 'Select and copy', name: what ? `Select and copy ${what}` : 'Select and copy' };
  return { shown: 'Copy', name: /^copy\b/i.test(label) ? label : `Copy ${label}` };
}

export function CopyButton({
  text,
  label = 'Copy',
  className,
  onCopied,
}: {
  text: string;
  label?: string;
  className?: string;
  onCopied?: (text: string) => void;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
      onCopied?.(text);
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  const { shown, name } = copyButtonText(label, state);
  return (
    <button type="button" className={className ?? 'button secondary small'} onClick={copy} aria-label={name}>
      <span aria-live="polite">{shown}</span>
    </button>
  );
}

/** A block of text to paste somewhere, with a copy button. */
export function Snippet({ text, label, onCopied }: { text: string; label: string; onCopied?: (text: string) => void }) {
  return (
    <div className="snippet">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable block must take keyboard focus to scroll (axe: scrollable-region-focusable) */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the snippet for screen readers when focused */}
      <pre aria-label={label} tabIndex={0}>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} onCopied={onCopied} />
    </div>
  );
}

/** A loading line that holds its place. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

/** An error with what to do; optionally a retry. */
export function ErrorNotice({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="notice error" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="button secondary small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** What an empty list looks like, with the next step. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** A short, readable time: "3 min ago", "12 Mar 2026". */
export function When({ at, never = '—' }: { at: string | null | undefined; never?: string }) {
  if (!at) return <span className="muted">{never}</span>;
  const d = new Date(at);
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()}>
      {relative(d)}
    </time>
  );
}

/** Relative time for recent moments, a date beyond a week. */
export function relative(d: Date, now = new Date()): string {
  const s = Math.round((now.getTime() - d.getTime()) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 7 * 86400) return `${Math.round(s / 86400)} d ago`;
  return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** Downloads text as a file. */
export function downloadText(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A read-only value with a label and a copy button beside it. */
export function CopyField({
  label,
  value,
  hint,
  copyLabel,
  mono,
}: {
  label: ReactNode;
  value: string;
  hint?: ReactNode;
  copyLabel: string;
  mono?: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="input-row">
        <input
          id={id}
          readOnly
          value={value}
          className={mono ? 'mono' : undefined}
          onFocus={(e) => e.currentTarget.select()}
        />
        <CopyButton text={value} label={copyLabel} />
      </div>
      {hint && <small className="hint">{hint}</small>}
    </div>
  );
}

/** An inline "are you sure?" beside a row's action: the question, the action's button, and Cancel. */
export function ConfirmInline({
  label,
  question,
  yes,
  busyLabel,
  busy,
  danger = false,
  onYes,
  onCancel,
}: {
  label: string;
  question: string;
  yes: string;
  busyLabel: string;
  busy: boolean;
  danger?: boolean;
  onYes: () => void;
  onCancel: () => void;
}) {
  return (
    <fieldset className="trash-actions" aria-label={label}>
      <span className="small">{question}</span>
      <button type="button" className={`button ${danger ? 'danger ' : ''}small`} disabled={busy} onClick={onYes}>
        {busy ? busyLabel : yes}
      </button>
      <button type="button" className="button secondary small" onClick={onCancel}>
        Cancel
      </button>
    </fieldset>
  );
}
