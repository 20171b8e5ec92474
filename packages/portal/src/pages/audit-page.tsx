import { useEffect, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { AuditEvent, AuditPage as Page } from '../api/types.js';
import { useSession } from '../session.js';
import { Empty, When } from '../ui/bits.js';
import { LoadedList, PageHead, TableHead } from '../ui/page-parts.js';
import { clientLabel, useMembers, usePeople } from './people.js';

/** The event families a reader can narrow to (the part of a kind before its dot). */
const FAMILIES = [
  ['', 'All events'],
  ['auth', 'Sign-ins'],
  ['key', 'API keys'],
  ['oauth', 'Connected apps'],
  ['invite', 'Invitations'],
  ['member', 'Members and roles'],
  ['team', 'Teams'],
  ['datapack', 'Datapacks'],
  ['entry', 'Entries'],
] as const;

/** Each recorded kind in words; the dotted code stays in the cell's title for those who filter by it. */
const EVENT_WORDS: Record<string, string> = {
  'auth.signed_in': 'Signed in',
  'auth.sign_in_failed': 'Sign-in failed',
  'account.password_changed': 'Password changed',
  'account.password_reset': 'Password reset',
  'key.created': 'API key created',
  'key.revoked': 'API key revoked',
  'key.expired': 'API key expired',
  'oauth.granted': 'App connected',
  'oauth.revoked': 'App disconnected',
  'invite.created': 'Invitation created',
  'invite.accepted': 'Invitation accepted',
  'invite.cancelled': 'Invitation cancelled',
  'member.removed': 'Member removed',
  'member.role_changed': 'Role changed',
  'team.created': 'Team created',
  'team.renamed': 'Team renamed',
  'team.member_added': 'Added to a team',
  'team.member_removed': 'Removed from a team',
  'datapack.created': 'Datapack created',
  'datapack.updated': 'Datapack changed',
  'datapack.deleted': 'Datapack deleted',
  'datapack.restored': 'Datapack restored',
  'datapack.imported': 'Datapack imported',
  'data.exported': 'Data exported',
  'entry.created': 'Entry created',
  'entry.updated': 'Entry changed',
  'entry.deleted': 'Entry deleted',
  'entry.restored': 'Entry restored',
  'entry.purged': 'Entry deleted for good',
};

/** An event's kind in words: the known ones by name, any other as its words ("x.some_thing" → "X some thing"). */
export function eventText(kind: string): string {
  const known = EVENT_WORDS[kind];
  if (known) return known;
  const words = kind.replace(/[._]/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Audit: who did what, when, with which credential and client. Organization admins and owners see
 * the organization's trail with filters by person, kind and date; everyone else their own.
 */
export function AuditPage() {
  const { me } = useSession();
  const org = me.organizations[0];
  const isAdmin = !!org && org.role.split(',').some((r) => r.trim() === 'owner' || r.trim() === 'admin');
  const members = useMembers();
  const nameOf = usePeople();
  const [person, setPerson] = useState('');
  const [kind, setKind] = useState('');
  const [since, setSince] = useState('');
  const [events, setEvents] = useState<AuditEvent[]>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);

  const query = (cursor?: string) => {
    const p = new URLSearchParams();
    if (isAdmin && org) p.set('org', org.id);
    if (isAdmin && person) p.set('actor', person);
    if (kind) p.set('kind', kind);
    if (since) p.set('since', since);
    if (cursor) p.set('cursor', cursor);
    return `/api/v1/audit?${p}`;
  };
  const load = async (cursor?: string) => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await api<Page>('GET', query(cursor));
      setEvents((shown) => (cursor ? [...(shown ?? []), ...page.events] : page.events));
      setNext(page.nextCursor);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setLoading(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filters decide when to load again
  useEffect(() => {
    void load();
  }, [person, kind, since]);

  return (
    <section className="page">
      <PageHead
        title="Audit"
        intro={
          isAdmin
            ? `Changes in ${org!.name}: members and roles, teams, invitations, datapacks, and team and organization entries, with who made each and the key, app and client they used.`
            : 'What you have done: your sign-ins, API keys, connected apps, and changes to team and organization datapacks.'
        }
      />
      <form className="search" aria-label="Audit filters" onSubmit={(e) => e.preventDefault()}>
        {isAdmin && (
          <label className="field">
            <span>Person</span>
            <select value={person} onChange={(e) => setPerson(e.target.value)}>
              <option value="">Everyone</option>
              {members.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.name ? `${m.name} (${m.email})` : m.email}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="field">
          <span>Kind</span>
          <select value={kind} onChange={(e) => setKind(e.target.value)}>
            {FAMILIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>From</span>
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
      </form>
      <LoadedList
        load={{ error, loading, reload: () => void load() }}
        items={events}
        what="the audit trail"
        empty={
          <Empty title="No events">
            <p>Nothing recorded matches these filters.</p>
          </Empty>
        }
      >
        {(events) => (
          <table className="table" aria-label="Audit events">
            <TableHead columns={['When', 'Event', 'Who', 'With', 'What']} />
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When at={e.at} />
                  </td>
                  <td>
                    <span title={e.kind}>{eventText(e.kind)}</span>
                    {e.outcome !== 'success' && <span className="badge"> {e.outcome}</span>}
                  </td>
                  <td>{e.actorEmail ?? (e.credential?.type === 'cli' ? 'the operator (CLI)' : 'unknown')}</td>
                  <td>{credentialText(e)}</td>
                  <td>{targetText(e.target, nameOf)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadedList>
      {next && (
        <p>
          <button type="button" className="button secondary" disabled={loading} onClick={() => void load(next)}>
            {loading ? 'Loading…' : 'Show older events'}
          </button>
        </p>
      )}
    </section>
  );
}

function credentialText(e: AuditEvent): string {
  const c = e.credential;
  const client = clientLabel(e.client);
  const how = !c
    ? ''
    : c.type === 'api_key'
      ? `key “${c.name ?? c.id}”`
      : c.type === 'oauth'
        ? `app “${c.name ?? 'an OAuth app'}”`
        : c.type === 'cli'
          ? 'cairn CLI'
          : 'portal session';
  return [how, client && client !== 'cairn-portal' ? client : undefined].filter(Boolean).join(' · ') || '—';
}

/** An event's target in words: a person's name, never their user id; anything else by its name, never an id or hash. */
export function targetText(target: AuditEvent['target'], person: (userId: string) => string): string {
  if (!target) return '—';
  if (target.type === 'user' && target.id) return target.name ?? person(target.id);
  if (target.name) return target.name;
  if (target.type === 'invite') return 'an invitation';
  const what = target.type.replace(/_/g, ' ');
  return `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`;
}
