import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { Datapack, Scope } from '../api/types.js';
import { ConnectDialog } from '../connect/connect-dialog.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import { Empty, ErrorNotice, When } from '../ui/bits.js';
import { Dialog, FormActions } from '../ui/dialog.js';
import { LoadedList, PageHead, TableHead } from '../ui/page-parts.js';
import { useLoad } from '../ui/use-load.js';

/** Datapacks: every datapack the user can read, with scope, entry count and last change. */
export function DatapacksPage() {
  const { me } = useSession();
  const { data, error, loading, reload } = useLoad(() => api<{ datapacks: Datapack[] }>('GET', '/api/v1/datapacks'));
  const [dialog, setDialog] = useState<'create' | 'connect'>();
  const teamName = (p: Datapack) => me.teams.find((t) => t.id === p.ownerId)?.name;
  const packs = data?.datapacks;
  const hasEntries = packs?.some((p) => (p.entryCount ?? 0) > 0);

  return (
    <section className="page">
      <PageHead
        title="Datapacks"
        intro="What your agents remember: personal preferences, team standards, organization policies."
        actions={
          <>
            <button type="button" className="button secondary" onClick={() => setDialog('create')}>
              New datapack
            </button>
            <button type="button" className="button" onClick={() => setDialog('connect')}>
              Connect a client
            </button>
          </>
        }
      />

      <LoadedList
        load={{ error, loading, reload }}
        items={packs}
        what="datapacks"
        empty={
          <Empty title="No datapacks yet — connect a client">
            <p>Connect an AI client and ask it to save something, or create a datapack yourself.</p>
          </Empty>
        }
      >
        {(packs) => (
          <>
            <table className="table datapacks">
              <TableHead columns={['Name', 'Scope', { label: 'Entries', className: 'num' }, 'Last change']} />
              <tbody>
                {packs.map((p) => (
                  <tr
                    key={p.id}
                    onClick={(e) => (e.target as HTMLElement).closest('a') || navigate(`/datapacks/${p.id}`)}
                  >
                    <td data-label="Name">
                      <div>
                        <Link to={`/datapacks/${p.id}`} className="strong">
                          {p.name}
                        </Link>
                        {p.description && <div className="muted small">{p.description}</div>}
                      </div>
                    </td>
                    <td data-label="Scope">
                      <ScopeBadge scope={p.scope} team={teamName(p)} />
                    </td>
                    <td data-label="Entries" className="num">
                      {p.entryCount ?? 0}
                    </td>
                    <td data-label="Last change">
                      <When at={p.lastChangedAt} never="No entries yet" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!hasEntries && (
              <Empty title="No entries yet — connect a client">
                <p>
                  Your agents fill these datapacks.{' '}
                  <button type="button" className="link-button" onClick={() => setDialog('connect')}>
                    Connect a client
                  </button>{' '}
                  and ask it to remember something, or open a datapack and add an entry.
                </p>
              </Empty>
            )}
          </>
        )}
      </LoadedList>
      {dialog === 'create' && (
        <CreateDatapackDialog
          onClose={() => setDialog(undefined)}
          onCreated={(p) => {
            setDialog(undefined);
            reload();
            navigate(`/datapacks/${p.id}`);
          }}
        />
      )}
      {dialog === 'connect' && <ConnectDialog onClose={() => setDialog(undefined)} />}
    </section>
  );
}

/** personal / team (with its name) / organization. */
export function ScopeBadge({ scope, team }: { scope: Scope; team?: string }) {
  const label =
    scope === 'team' ? (team ? `Team · ${team}` : 'Team') : scope === 'personal' ? 'Personal' : 'Organization';
  return <span className={`badge scope-${scope}`}>{label}</span>;
}

function CreateDatapackDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (p: Datapack) => void }) {
  const { me } = useSession();
  const [scope, setScope] = useState<Scope>('personal');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const noTeams = me.teams.length === 0;
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const description = String(f.get('description') ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      const body = {
        name: String(f.get('name') ?? '').trim(),
        scope,
        ...(scope === 'team' && { teamId: String(f.get('teamId') ?? '') }),
        ...(scope === 'organization' &&
          me.organizations[0] && { organizationId: String(f.get('organizationId') ?? me.organizations[0].id) }),
        ...(description && { description }),
      };
      const { datapack } = await api<{ datapack: Datapack }>('POST', '/api/v1/datapacks', body);
      onCreated(datapack);
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title="New datapack" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label className="field">
          <span>Name</span>
          <input name="name" required maxLength={100} autoFocus placeholder="Frontend standards" />
        </label>
        <fieldset className="field">
          <legend>Who owns it</legend>
          <div className="radio-row">
            {(['personal', 'team', 'organization'] as const).map((s) => (
              <label key={s} className="radio">
                <input type="radio" name="scope" value={s} checked={scope === s} onChange={() => setScope(s)} />
                <span>{s === 'personal' ? 'Only me' : s === 'team' ? 'A team' : 'The organization'}</span>
              </label>
            ))}
          </div>
        </fieldset>
        {scope === 'team' &&
          (noTeams ? (
            <div className="notice" role="note">
              <p>
                You are not in a team yet. Create one in <Link to="/settings/organization">Organization settings</Link>,
                then come back.
              </p>
            </div>
          ) : (
            <label className="field">
              <span>Team</span>
              <select name="teamId" required aria-label="Team">
                {me.teams.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </label>
          ))}
        {scope === 'organization' && me.organizations.length > 1 && (
          <label className="field">
            <span>Organization</span>
            <select name="organizationId" aria-label="Organization">
              {me.organizations.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="field">
          <span>
            Description <span className="muted">(optional)</span>
          </span>
          <textarea name="description" rows={2} maxLength={500} />
        </label>
        {error && <ErrorNotice message={error} />}
        <FormActions
          onCancel={onClose}
          label="Create datapack"
          busyLabel="Creating…"
          busy={busy}
          disabled={scope === 'team' && noTeams}
        />
      </form>
    </Dialog>
  );
}
