import type { Entry } from '../api/types.js';
import { todayUtc } from './entry-lifecycle.js';

/** Globs or project names typed one per line (or separated by commas). */
const parseList = (s: string) => [
  ...new Set(
    s
      .split(/[\n,]+/)
      .map((t) => t.trim())
      .filter(Boolean),
  ),
];

/** The form's applies fields as the API takes them: always, files, projects and when (left out when empty). */
export function appliesFromForm(f: FormData): { always: boolean; files: string[]; projects: string[]; when?: string } {
  const when = String(f.get('when') ?? '').trim();
  return {
    always: f.get('always') === 'on',
    files: parseList(String(f.get('files') ?? '')),
    projects: parseList(String(f.get('projects') ?? '')),
    ...(when && { when }),
  };
}

/** Where a rule applies besides its topic, each field with what it does. */
export function AppliesFields({ entry }: { entry?: Pick<Entry, 'applies'> }) {
  const applies = entry?.applies;
  return (
    <fieldset className="field applies">
      <legend>When agents get this rule</legend>
      <p className="muted small">Without any of these, agents get it when their task is about its topic.</p>
      <label className="field">
        <span>
          When it is needed{' '}
          <span className="muted small">
            — one or two sentences on the situations in which an agent needs this rule, in the words a task would use;
            matched against every task, as Cursor&apos;s rule descriptions are
          </span>
        </span>
        <textarea
          name="when"
          rows={2}
          maxLength={300}
          defaultValue={applies?.when ?? ''}
          placeholder="Adding or changing a database migration; renaming or dropping a column or table."
        />
      </label>
      <label className="checkbox">
        <input type="checkbox" name="always" defaultChecked={applies?.always ?? false} />
        <span>
          Always{' '}
          <span className="muted small">
            — with every task, whatever it is about (keep this for the few rules everyone must always know)
          </span>
        </span>
      </label>
      <label className="field">
        <span>
          Files{' '}
          <span className="muted small">
            — globs, one per line, such as migrations/** or **/*.tf: given whenever a task touches a matching file
          </span>
        </span>
        <textarea name="files" rows={2} defaultValue={applies?.files.join('\n')} placeholder="migrations/**" />
      </label>
      <label className="field">
        <span>
          Projects{' '}
          <span className="muted small">— repository or folder names, one per line: given for tasks in them</span>
        </span>
        <textarea name="projects" rows={2} defaultValue={applies?.projects.join('\n')} placeholder="ledger-service" />
      </label>
    </fieldset>
  );
}

/** One applicability badge on an entry row: its label and what hovering it says. */
export interface AppliesBadge {
  key: string;
  label: string;
  title: string;
}

const RULE_KINDS: readonly string[] = ['policy', 'standard', 'preference'];

/** The badges saying at a glance when agents get a rule, and whether it was replaced; add a case here for a new field. */
export function appliesBadges(
  entry: Pick<Entry, 'kind' | 'applies' | 'replacedBy'> & Partial<Pick<Entry, 'reviewBy' | 'expires'>>,
  today = todayUtc(),
): AppliesBadge[] {
  const badges: AppliesBadge[] = [];
  if (entry.replacedBy)
    badges.push({
      key: 'replaced',
      label: 'Replaced',
      title: 'Replaced by a newer rule; agents get that one (open it to see which)',
    });
  // Past the day itself, as the server compares: an expired rule is no longer given, a due one still is.
  if (entry.expires && entry.expires < today)
    badges.push({
      key: 'expired',
      label: 'Expired',
      title: `Expired after ${entry.expires}; agents no longer get it. Edit it and set a later date to renew it`,
    });
  if (entry.reviewBy && entry.reviewBy < today)
    badges.push({
      key: 'review',
      label: 'Review due',
      title: `To be reviewed by ${entry.reviewBy}; still given to agents`,
    });
  if (!RULE_KINDS.includes(entry.kind)) return badges;
  const { always, files, projects, when } = entry.applies;
  if (always) badges.push({ key: 'always', label: 'Always', title: 'Given with every task' });
  if (files.length) badges.push({ key: 'files', label: 'Files', title: `When a task touches ${files.join(', ')}` });
  if (projects.length) badges.push({ key: 'project', label: 'Project', title: `In ${projects.join(', ')}` });
  if (!always && !files.length && !projects.length)
    badges.push({
      key: 'topic',
      label: 'Topic',
      title: when ? `When a task is about: ${when}` : 'When a task is about its topic',
    });
  return badges;
}

/** An entry row's applicability badges. */
export function AppliesBadges({
  entry,
}: {
  entry: Pick<Entry, 'kind' | 'applies' | 'replacedBy'> & Partial<Pick<Entry, 'reviewBy' | 'expires'>>;
}) {
  return (
    <>
      {appliesBadges(entry).map((b) => (
        <span key={b.key} className={`badge applies-${b.key}`} title={b.title}>
          {b.label}
        </span>
      ))}
    </>
  );
}
