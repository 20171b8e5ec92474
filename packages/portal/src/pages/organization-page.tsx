import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { Member, Team } from '../api/types.js';
import { useSession } from '../session.js';
import { CopyField, Empty, ErrorNotice, Loading } from '../ui/bits.js';
import { useLoad } from '../ui/use-load.js';

/** Organization settings: members and roles, invite links, teams and their members. */
export function OrganizationPage() {
  const { me } = useSession();
  const org = me.organizations[0];
  if (!org) {
    return (
      <section className="page">
        <h1>Organization</h1>
        <Empty title="You are not in an organization">
          <p>Ask an organization admin for an invite link, then sign up with it.</p>
        </Empty>
      </section>
    );
  }
  return <OrganizationSettings orgId={org.id} orgName={org.name} isAdmin={org.role === 'owner' || org.role === 'admin'} />;
}

function OrganizationSettings({ orgId, orgName, isAdmin }: { orgId: string; orgName: string; isAdmin: boolean }) {
  const { me } = useSession();
  const members = useLoad(() => api<{ members: Member[] }>('GET', `/api/v1/organizations/${orgId}/members`), [orgId]);
  const teams = useLoad(() => api<{ teams: Team[] }>('GET', `/api/v1/organizations/${orgId}/teams`), [orgId]);
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <span>Settings</span> <span aria-hidden="true">/</span> <span aria-current="page">Organization</span>
      </nav>
      <div className="page-head">
        <div>
          <h1>{orgName}</h1>
          <p className="muted">Members, invitations and teams. {isAdmin ? 'You are an admin.' : 'Only admins can invite people and manage teams.'}</p>
        </div>
      </div>

      <div className="card section">
        <h2>Members</h2>
        {members.error && <ErrorNotice message={members.error} onRetry={members.reload} />}
        {!members.data && members.loading && <Loading what="members" />}
        {members.data && (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {members.data.members.map((m) => (
                <tr key={m.userId}>
                  <td data-label="Name" className="strong">
                    {m.name}
                  </td>
                  <td data-label="Email">{m.email}</td>
                  <td data-label="Role">{isAdmin && m.userId !== me.user.id ? <RoleSelect orgId={orgId} member={m} onChanged={members.reload} /> : <span className="badge">{m.role}</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {isAdmin && <InviteForm orgId={orgId} />}
      </div>

      <div className="card section">
        <h2>Teams</h2>
        <p className="muted">A team owns team datapacks; its members read and write them.</p>
        {teams.error && <ErrorNotice message={teams.error} onRetry={teams.reload} />}
        {!teams.data && teams.loading && <Loading what="teams" />}
        {teams.data && teams.data.teams.length === 0 && <Empty title="No teams yet">{isAdmin ? <p>Create one below, then add its members.</p> : <p>Ask an admin to create one.</p>}</Empty>}
        {teams.data && teams.data.teams.length > 0 && (
          <ul className="teams">
            {teams.data.teams.map((t) => (
              <TeamCard key={t.id} team={t} members={members.data?.members ?? []} isAdmin={isAdmin} onChanged={teams.reload} />
            ))}
          </ul>
        )}
        {isAdmin && <CreateTeamForm orgId={orgId} onCreated={teams.reload} />}
      </div>
    </section>
  );
}

function InviteForm({ orgId }: { orgId: string }) {
  const [invite, setInvite] = useState<{ inviteUrl: string; expiresAt: string }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const role = String(new FormData(e.currentTarget).get('role'));
    setBusy(true);
    setError(undefined);
    try {
      setInvite(await api<{ inviteUrl: string; expiresAt: string }>('POST', `/api/v1/organizations/${orgId}/invitations`, { role }));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="subsection">
      <h3>Invite someone</h3>
      <form className="inline-form" onSubmit={submit}>
        <label className="field">
          <span>Role</span>
          <select name="role" aria-label="Role" defaultValue="member">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </label>
        <button type="submit" className="button secondary" disabled={busy}>
          {busy ? 'Creating…' : 'Create invite link'}
        </button>
      </form>
      {error && <ErrorNotice message={error} />}
      {invite && (
        <CopyField
          label="Invite link"
          value={invite.inviteUrl}
          copyLabel="Copy invite link"
          hint={`Send it to one person; it works once and expires ${new Date(invite.expiresAt).toLocaleString()}.`}
        />
      )}
    </div>
  );
}

function CreateTeamForm({ orgId, onCreated }: { orgId: string; onCreated: () => void }) {
  const { me, refresh } = useSession();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setBusy(true);
    setError(undefined);
    try {
      const { team } = await api<{ team: { id: string } }>('POST', `/api/v1/organizations/${orgId}/teams`, { name: String(f.get('name') ?? '').trim() });
      if (f.get('joinMe')) await api('POST', `/api/v1/teams/${team.id}/members`, { userId: me.user.id });
      form.reset();
      onCreated();
      await refresh();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="subsection">
      <h3>New team</h3>
      <form className="inline-form" onSubmit={submit}>
        <label className="field grow">
          <span>Team name</span>
          <input name="name" required maxLength={80} placeholder="Platform" />
        </label>
        <label className="checkbox">
          <input type="checkbox" name="joinMe" defaultChecked /> Add me to this team
        </label>
        <button type="submit" className="button secondary" disabled={busy}>
          {busy ? 'Creating…' : 'Create team'}
        </button>
      </form>
      {error && <ErrorNotice message={error} />}
    </div>
  );
}

function TeamCard({ team, members, isAdmin, onChanged }: { team: Team; members: Member[]; isAdmin: boolean; onChanged: () => void }) {
  const { me, refresh } = useSession();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const candidates = members.filter((m) => !team.members.some((t) => t.userId === m.userId));
  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const userId = String(new FormData(e.currentTarget).get('userId'));
    setBusy(true);
    setError(undefined);
    try {
      await api('POST', `/api/v1/teams/${team.id}/members`, { userId });
      onChanged();
      if (userId === me.user.id) await refresh();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="team">
      <h3>{team.name}</h3>
      {team.members.length === 0 ? (
        <p className="muted">No members yet.</p>
      ) : (
        <ul className="chips" aria-label={`Members of ${team.name}`}>
          {team.members.map((m) => (
            <li key={m.userId} className="chip" title={m.email}>
              {m.name || m.email}
            </li>
          ))}
        </ul>
      )}
      {isAdmin && candidates.length > 0 && (
        <form className="inline-form" onSubmit={add}>
          <label className="field">
            <span>Add to {team.name}</span>
            <select name="userId" aria-label={`Add to ${team.name}`}>
              {candidates.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.name || m.email}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button secondary small" disabled={busy}>
            Add member
          </button>
        </form>
      )}
      {error && <ErrorNotice message={error} />}
    </li>
  );
}

/** An admin's control for one member's role; the server refuses what is not allowed and says why. */
function RoleSelect({ orgId, member, onChanged }: { orgId: string; member: Member; onChanged: () => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const change = async (role: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await api('PATCH', `/api/v1/organizations/${orgId}/members/${member.userId}`, { role });
      onChanged();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <select aria-label={`Role of ${member.name}`} value={member.role} disabled={busy} onChange={(e) => void change(e.currentTarget.value)}>
        <option value="member">member</option>
        <option value="admin">admin</option>
        <option value="owner">owner</option>
      </select>
      {error && (
        <div className="notice error" role="alert">
          <p>{error}</p>
        </div>
      )}
    </>
  );
}
