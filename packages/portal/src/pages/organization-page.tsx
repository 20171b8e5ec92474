import { type FormEvent, useState } from 'react';
import { api } from '../api/client.js';
import type { Member, Team } from '../api/types.js';
import { useSession } from '../session.js';
import { CopyField, Empty, ErrorNotice, Loading } from '../ui/bits.js';
import { LoadedList, PageHead, settingsCrumb, TableHead } from '../ui/page-parts.js';
import { useAction } from '../ui/use-action.js';
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
  return <OrganizationSettings orgId={org.id} orgName={org.name} role={org.role} />;
}

/** What the page says of the reader's own place in the organization. */
export function roleIntro(role: string): string {
  if (role === 'owner') return 'You own this organization.';
  if (role === 'admin') return 'You are an admin.';
  return 'Only admins can invite people and manage teams.';
}

function OrganizationSettings({ orgId, orgName, role }: { orgId: string; orgName: string; role: string }) {
  const isAdmin = role === 'owner' || role === 'admin';
  const { me } = useSession();
  const members = useLoad(() => api<{ members: Member[] }>('GET', `/api/v1/organizations/${orgId}/members`), [orgId]);
  const teams = useLoad(() => api<{ teams: Team[] }>('GET', `/api/v1/organizations/${orgId}/teams`), [orgId]);
  const invites = useLoad(
    async () =>
      isAdmin
        ? api<{ invitations: { id: string; role: string; createdBy: string; createdAt: string; expiresAt: string }[] }>(
            'GET',
            `/api/v1/organizations/${orgId}/invitations`,
          )
        : undefined,
    [orgId, isAdmin],
  );
  return (
    <section className="page">
      <PageHead
        crumb={settingsCrumb('Organization')}
        title={orgName}
        intro={`Members, invitations and teams. ${roleIntro(role)}`}
      />

      <div className="card section">
        <h2>Members</h2>
        {members.error && <ErrorNotice message={members.error} onRetry={members.reload} />}
        {!members.data && members.loading && <Loading what="members" />}
        {members.data && (
          <table className="table">
            <TableHead columns={['Name', 'Email', 'Role']} actions={isAdmin} />
            <tbody>
              {members.data.members.map((m) => (
                <tr key={m.userId}>
                  <td data-label="Name" className="strong">
                    {m.name}
                  </td>
                  <td data-label="Email">{m.email}</td>
                  <td data-label="Role">
                    {isAdmin && m.userId !== me.user.id ? (
                      <RoleSelect orgId={orgId} member={m} onChanged={members.reload} />
                    ) : (
                      <span className="badge">{m.role}</span>
                    )}
                  </td>
                  {isAdmin && (
                    <td data-label="">
                      {m.userId !== me.user.id && (
                        <ConfirmButton
                          label={`Remove ${m.name || m.email}`}
                          text="Remove"
                          confirmText={`Remove ${m.name || m.email} from ${orgName}`}
                          action={async () => {
                            await api('DELETE', `/api/v1/organizations/${orgId}/members/${m.userId}`);
                            members.reload();
                            teams.reload();
                          }}
                        />
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {isAdmin && <InviteForm orgId={orgId} onCreated={invites.reload} />}
        {isAdmin && invites.data && invites.data.invitations.length > 0 && (
          <div className="subsection">
            <h3>Open invitations</h3>
            <ul className="plain-list" aria-label="Open invitations">
              {invites.data.invitations.map((i) => (
                <li key={i.id}>
                  <span className="badge">{i.role}</span> made by{' '}
                  {members.data?.members.find((m) => m.userId === i.createdBy)?.name ?? 'an admin'}, expires{' '}
                  {new Date(i.expiresAt).toLocaleString()}{' '}
                  <ConfirmButton
                    label={`Cancel the ${i.role} invitation made ${new Date(i.createdAt).toLocaleString()}`}
                    text="Cancel"
                    confirmText="Cancel this invitation"
                    action={async () => {
                      await api('DELETE', `/api/v1/organizations/${orgId}/invitations/${encodeURIComponent(i.id)}`);
                      invites.reload();
                    }}
                  />
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>

      <div className="card section">
        <h2>Teams</h2>
        <p className="muted">A team owns team datapacks; its members read and write them.</p>
        <LoadedList
          load={teams}
          items={teams.data?.teams}
          what="teams"
          empty={
            <Empty title="No teams yet">
              {isAdmin ? <p>Create one below, then add its members.</p> : <p>Ask an admin to create one.</p>}
            </Empty>
          }
        >
          {(list) => (
            <ul className="teams">
              {list.map((t) => (
                <TeamCard
                  key={t.id}
                  team={t}
                  members={members.data?.members ?? []}
                  isAdmin={isAdmin}
                  onChanged={teams.reload}
                />
              ))}
            </ul>
          )}
        </LoadedList>
        {isAdmin && <CreateTeamForm orgId={orgId} onCreated={teams.reload} />}
      </div>
    </section>
  );
}

function InviteForm({ orgId, onCreated }: { orgId: string; onCreated: () => void }) {
  const [invite, setInvite] = useState<{ inviteUrl: string; expiresAt: string }>();
  const { busy, error, run } = useAction();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const role = String(new FormData(e.currentTarget).get('role'));
    await run(async () => {
      setInvite(
        await api<{ inviteUrl: string; expiresAt: string }>('POST', `/api/v1/organizations/${orgId}/invitations`, {
          role,
        }),
      );
      onCreated();
    });
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
  const { busy, error, run } = useAction();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    await run(async () => {
      const { team } = await api<{ team: { id: string } }>('POST', `/api/v1/organizations/${orgId}/teams`, {
        name: String(f.get('name') ?? '').trim(),
      });
      if (f.get('joinMe')) await api('POST', `/api/v1/teams/${team.id}/members`, { userId: me.user.id });
      form.reset();
      onCreated();
      await refresh();
    });
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

function TeamCard({
  team,
  members,
  isAdmin,
  onChanged,
}: {
  team: Team;
  members: Member[];
  isAdmin: boolean;
  onChanged: () => void;
}) {
  const { me, refresh } = useSession();
  const { busy, error, run } = useAction();
  const candidates = members.filter((m) => !team.members.some((t) => t.userId === m.userId));
  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const userId = String(new FormData(e.currentTarget).get('userId'));
    await run(async () => {
      await api('POST', `/api/v1/teams/${team.id}/members`, { userId });
      onChanged();
      if (userId === me.user.id) await refresh();
    });
  };
  const [renaming, setRenaming] = useState(false);
  const rename = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name') ?? '').trim();
    await run(async () => {
      await api('PATCH', `/api/v1/teams/${team.id}`, { name });
      setRenaming(false);
      onChanged();
      await refresh();
    });
  };
  const remove = async (userId: string) => {
    await api('DELETE', `/api/v1/teams/${team.id}/members/${userId}`);
    onChanged();
    if (userId === me.user.id) await refresh();
  };
  return (
    <li className="team">
      {renaming ? (
        <form className="inline-form" onSubmit={rename}>
          <label className="field grow">
            <span>New name for {team.name}</span>
            <input name="name" required maxLength={80} defaultValue={team.name} />
          </label>
          <button type="submit" className="button secondary small" disabled={busy}>
            Save name
          </button>
          <button type="button" className="button secondary small" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <h3>
          {team.name}{' '}
          {isAdmin && (
            <button
              type="button"
              className="link-button small"
              aria-label={`Rename ${team.name}`}
              onClick={() => setRenaming(true)}
            >
              Rename
            </button>
          )}
        </h3>
      )}
      {team.members.length === 0 ? (
        <p className="muted">No members yet.</p>
      ) : (
        <ul className="chips" aria-label={`Members of ${team.name}`}>
          {team.members.map((m) => (
            <li key={m.userId} className="chip" title={m.email}>
              {m.name || m.email}
              {isAdmin && (
                <ConfirmButton
                  label={`Remove ${m.name || m.email} from ${team.name}`}
                  text="×"
                  confirmText={`Remove from ${team.name}`}
                  className="chip-remove"
                  action={() => remove(m.userId)}
                />
              )}
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

/** A destructive action in two steps: the first press asks, the second does it; the server says why when it refuses. */
function ConfirmButton({
  label,
  text,
  confirmText,
  action,
  className,
}: {
  label: string;
  text: string;
  confirmText: string;
  action: () => Promise<void>;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const { busy, error, run } = useAction();
  const confirm = () =>
    run(async () => {
      await action();
      setAsking(false);
    });
  return (
    <>
      {asking ? (
        <span className="confirm">
          <button type="button" className="button danger small" disabled={busy} onClick={() => void confirm()}>
            {confirmText}
          </button>
          <button type="button" className="button secondary small" onClick={() => setAsking(false)}>
            Keep
          </button>
        </span>
      ) : (
        <button
          type="button"
          className={className ?? 'button secondary small'}
          aria-label={label}
          onClick={() => setAsking(true)}
        >
          {text}
        </button>
      )}
      {error && (
        <span className="notice error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

/** An admin's control for one member's role; the server refuses what is not allowed and says why. */
function RoleSelect({ orgId, member, onChanged }: { orgId: string; member: Member; onChanged: () => void }) {
  const { busy, error, run } = useAction();
  const change = async (role: string) => {
    await run(async () => {
      await api('PATCH', `/api/v1/organizations/${orgId}/members/${member.userId}`, { role });
      onChanged();
    });
  };
  return (
    <>
      <select
        aria-label={`Role of ${member.name}`}
        value={member.role}
        disabled={busy}
        onChange={(e) => void change(e.currentTarget.value)}
      >
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
