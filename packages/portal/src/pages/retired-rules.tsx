import { type ReactNode, useState } from 'react';
import { messageOf } from '../api/client.js';
import type { Entry, Scope } from '../api/types.js';
import { Link } from '../router.js';
import { ConfirmInline, ErrorNotice } from '../ui/bits.js';
import { plainPreview } from '../ui/markdown.js';
import { ScopeBadge } from './datapacks-page.js';

/** A rule agents no longer get (replaced; later also expired), as a list row shows it. */
export interface RetiredRule {
  entry: Entry;
  datapack: { id: string; name: string; scope: Scope };
  /** Whether the caller may bring it back. */
  writable: boolean;
  /** What happened to it and what took its place, under the title. */
  note: ReactNode;
}

/** What a row's button does: confirmed first, then the row leaves the list (the page reloads it). */
export interface RetiredRuleAction {
  /** The button: "Reinstate", "Renew"… */
  label: string;
  busyLabel: string;
  /** The question asked before, naming what happens to agents. */
  confirm: string;
  run: (rule: RetiredRule) => Promise<unknown>;
  /** Said once it is done. */
  done: (rule: RetiredRule) => string;
}

/**
 * One list of retired rules with one action: the Replaced rules page's list, and the same component
 * for any other reason a rule leaves guidance (an expired section takes its rows and a Renew action).
 */
export function RetiredRuleList({
  label,
  rules,
  action,
  onChanged,
}: {
  /** The list's accessible name ("Replaced rules"). */
  label: string;
  rules: RetiredRule[];
  action: RetiredRuleAction;
  /** After the action: the page reloads the list and says what was done (the list may be gone by then). */
  onChanged: (done: RetiredRuleDone) => void;
}) {
  const [confirming, setConfirming] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const run = async (rule: RetiredRule) => {
    setBusy(rule.entry.id);
    setError(undefined);
    try {
      await action.run(rule);
      setConfirming(undefined);
      onChanged({ text: action.done(rule), to: entryPath(rule.datapack.id, rule.entry.id) });
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <>
      {error && <ErrorNotice message={error} />}
      <ul className="entries" aria-label={label}>
        {rules.map((r) => (
          <li key={r.entry.id} className="trash-row">
            <div className="trash-text">
              <Link className="entry-title" to={entryPath(r.datapack.id, r.entry.id)}>
                {r.entry.title}
              </Link>
              <span className="entry-meta">
                <span className={`badge kind-${r.entry.kind}`}>{r.entry.kind}</span>
                <ScopeBadge scope={r.datapack.scope} />
                <span className="muted small">
                  in <Link to={`/datapacks/${encodeURIComponent(r.datapack.id)}`}>{r.datapack.name}</Link> · {r.note}
                </span>
              </span>
              <span className="entry-snippet">{plainPreview(r.entry.content)}</span>
            </div>
            {r.writable && confirming !== r.entry.id && (
              <span className="trash-actions">
                <button
                  type="button"
                  className="button secondary small"
                  aria-label={`${action.label} ${r.entry.title}`}
                  onClick={() => setConfirming(r.entry.id)}
                >
                  {action.label}
                </button>
              </span>
            )}
            {r.writable && confirming === r.entry.id && (
              <ConfirmInline
                label={`${action.label} ${r.entry.title}?`}
                question={action.confirm}
                yes={`Yes, ${action.label.toLowerCase()}`}
                busyLabel={action.busyLabel}
                busy={busy === r.entry.id}
                onYes={() => void run(r)}
                onCancel={() => setConfirming(undefined)}
              />
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

/** What an action did, and the rule's address. */
export interface RetiredRuleDone {
  text: string;
  to: string;
}

/** The notice a page shows above its lists once an action is done. */
export function RetiredRuleNotice({ done }: { done: RetiredRuleDone | undefined }) {
  if (!done) return null;
  return (
    <p className="notice success" role="status">
      {done.text} <Link to={done.to}>Open it</Link>
    </p>
  );
}

/** An entry's address in the portal: its datapack's page with the entry open. */
export function entryPath(datapackId: string, entryId: string): string {
  return `/datapacks/${encodeURIComponent(datapackId)}/entries/${encodeURIComponent(entryId)}`;
}
