import type { Entry } from '../api/types.js';
import { useSession } from '../session.js';
import { useMembers } from './people.js';

/** Today's date in UTC as YYYY-MM-DD, the day the server compares review-by and expiry dates with. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * The form's lifecycle fields as the API takes them. A new entry leaves out what is empty; an edit
 * sends null for an emptied date (which clears it) and the owner only when it changed.
 */
export function lifecycleFromForm(
  f: FormData,
  entry?: Pick<Entry, 'owner' | 'reviewBy' | 'expires'>,
): { owner?: string; reviewBy?: string | null; expires?: string | null } {
  const value = (name: string) => String(f.get(name) ?? '').trim();
  const date = (name: 'reviewBy' | 'expires') => {
    const v = value(name);
    if (!entry) return v ? { [name]: v } : {};
    return v === (entry[name] ?? '') ? {} : { [name]: v || null };
  };
  const owner = value('owner');
  return {
    ...(owner && owner !== entry?.owner && { owner }),
    ...date('reviewBy'),
    ...date('expires'),
  };
}

/** Who answers for a rule and its two dates, each with what it does. */
export function LifecycleFields({ entry }: { entry?: Pick<Entry, 'owner' | 'reviewBy' | 'expires'> }) {
  const { me } = useSession();
  const members = useMembers();
  const owner = entry?.owner ?? me.user.id;
  const known = members.some((m) => m.userId === owner);
  return (
    <fieldset className="field lifecycle">
      <legend>Lifecycle</legend>
      {members.length ? (
        <label className="field">
          <span>
            Owner <span className="muted small">— who answers for this rule and is told when it is due for review</span>
          </span>
          <select name="owner" aria-label="Owner" defaultValue={owner}>
            {!known && <option value={owner}>{owner === me.user.id ? 'you' : owner}</option>}
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.userId === me.user.id ? 'you' : m.name || m.email}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p className="field">
          Owner: {owner === me.user.id ? 'you' : owner}{' '}
          <span className="muted small">— no member list to choose from, so the owner stays as it is</span>
        </p>
      )}
      <div className="form-grid">
        <label className="field">
          <span>
            Review by{' '}
            <span className="muted small">— after this day it is flagged “Review due”, still given to agents</span>
          </span>
          <input type="date" name="reviewBy" aria-label="Review by" defaultValue={entry?.reviewBy ?? ''} />
        </label>
        <label className="field">
          <span>
            Expires <span className="muted small">— after this day agents no longer get it, until you renew it</span>
          </span>
          <input type="date" name="expires" aria-label="Expires" defaultValue={entry?.expires ?? ''} />
        </label>
      </div>
    </fieldset>
  );
}
