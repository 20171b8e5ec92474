import { type FormEvent, useState } from 'react';
import { api } from '../api/client.js';
import type { ApiKeyRecord } from '../api/types.js';
import { CopyButton, downloadText, Empty, ErrorNotice, When } from '../ui/bits.js';
import { Dialog, FormActions } from '../ui/dialog.js';
import { LoadedList, PageHead, settingsCrumb, TableHead } from '../ui/page-parts.js';
import { RevokeButton, RevokeDialog } from '../ui/revoke-dialog.js';
import { UnsavedKeyDialog } from '../ui/unsaved-key.js';
import { useAction } from '../ui/use-action.js';
import { useLoad } from '../ui/use-load.js';
import { clientLabel } from './people.js';

/** How long a new key may live; `undefined` days means it never expires. */
const EXPIRY_CHOICES: { label: string; days?: number }[] = [
  { label: 'No expiry' },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '365 days', days: 365 },
];

const scopeLabel = (k: Pick<ApiKeyRecord, 'scope'>) => (k.scope === 'read' ? 'Read only' : 'Read and write');
const isExpired = (k: Pick<ApiKeyRecord, 'expiresAt'>, now = Date.now()) =>
  !!k.expiresAt && Date.parse(k.expiresAt) <= now;
/** A key that works no more: revoked or past its expiry. */
const isRetired = (k: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>) => !!k.revokedAt || isExpired(k);

/** Settings > API Keys: generate (scope, expiry; shown once), list (start…last4, access, expiry, last use), revoke. */
export function ApiKeysPage() {
  const { data, error, loading, reload } = useLoad(() => api<{ keys: ApiKeyRecord[] }>('GET', '/api/v1/keys'));
  const [dialog, setDialog] = useState<{ kind: 'generate' } | { kind: 'revoke'; key: ApiKeyRecord }>();
  // Revoked and expired keys work no more: hidden unless asked for, so they do not pile up over the live ones.
  const [showRetired, setShowRetired] = useState(false);
  const retired = (data?.keys ?? []).filter(isRetired).length;
  return (
    <section className="page">
      <PageHead
        crumb={settingsCrumb('API Keys')}
        title="API keys"
        intro="For clients that cannot sign in in a browser: command-line agents, CI, scripts, Kiro."
        actions={
          <button type="button" className="button" onClick={() => setDialog({ kind: 'generate' })}>
            Generate API key
          </button>
        }
      />
      <LoadedList
        load={{ error, loading, reload }}
        items={data?.keys}
        what="API keys"
        empty={
          <Empty title="No API keys yet">
            <p>Generate one for each client or machine, so you can revoke one without touching the others.</p>
          </Empty>
        }
      >
        {(all) => {
          const keys = showRetired ? all : all.filter((k) => !isRetired(k));
          return (
            <>
              {retired > 0 && (
                <label className="inline-check">
                  <input type="checkbox" checked={showRetired} onChange={(e) => setShowRetired(e.target.checked)} />{' '}
                  Show {retired} revoked or expired {retired === 1 ? 'key' : 'keys'}
                </label>
              )}
              {keys.length === 0 ? (
                <p className="muted">No key works right now: generate one for each client or machine.</p>
              ) : (
                <table className="table keys">
                  <TableHead columns={['Name', 'Key', 'Access', 'Created', 'Expires', 'Last used']} actions />
                  <tbody>
                    {keys.map((k) => (
                      <tr key={k.id} className={isRetired(k) ? 'revoked' : undefined}>
                        <td data-label="Name" className="strong">
                          {k.name}
                        </td>
                        <td data-label="Key">
                          <code>
                            {k.start ?? 'cairn_tkn_'}…{k.last4 ?? ''}
                          </code>
                        </td>
                        <td data-label="Access">
                          <span className={`badge ${k.scope === 'read' ? 'scope-personal' : 'scope-team'}`}>
                            {scopeLabel(k)}
                          </span>
                        </td>
                        <td data-label="Created">
                          <When at={k.createdAt} />
                        </td>
                        <td data-label="Expires">
                          <Expiry at={k.expiresAt} />
                        </td>
                        <td data-label="Last used">
                          <When at={k.lastUsedAt} never="Never" />
                          {k.lastUsedClient && <span className="muted small"> by {clientLabel(k.lastUsedClient)}</span>}
                        </td>
                        <td data-label="" className="row-actions">
                          {k.revokedAt ? (
                            <span className="badge revoked-badge">
                              Revoked <When at={k.revokedAt} />
                            </span>
                          ) : (
                            <RevokeButton name={k.name} onClick={() => setDialog({ kind: 'revoke', key: k })} />
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          );
        }}
      </LoadedList>
      {dialog?.kind === 'generate' && (
        <GenerateKeyDialog
          onClose={() => {
            setDialog(undefined);
            reload();
          }}
        />
      )}
      {dialog?.kind === 'revoke' && (
        <RevokeDialog
          name={dialog.key.name}
          explanation="Every client using this key stops working at once. This cannot be undone; you can generate a new key afterwards."
          path={`/api/v1/keys/${encodeURIComponent(dialog.key.id)}`}
          confirmLabel="Revoke key"
          onClose={() => setDialog(undefined)}
          onRevoked={() => {
            setDialog(undefined);
            reload();
          }}
        />
      )}
    </section>
  );
}

/** The expiry cell: the date, "Never", or an "Expired" badge once it has passed (the key then works no more). */
function Expiry({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">Never</span>;
  const date = new Date(at);
  const day = date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  if (isExpired({ expiresAt: at }))
    return (
      <span className="badge revoked-badge" title={date.toLocaleString()}>
        Expired {day}
      </span>
    );
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {day}
    </time>
  );
}

function GenerateKeyDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState<{ key: string; record: ApiKeyRecord }>();
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    const scope = form.get('scope') === 'read' ? 'read' : 'read-write';
    const days = Number(form.get('expires') ?? 0);
    await run(async () => {
      const r = await api<{ key: string; record: ApiKeyRecord }>('POST', '/api/v1/keys', {
        name,
        scope,
        ...(days > 0 && { expiresInDays: days }),
      });
      setKey({ key: r.key, record: { ...r.record, name: r.record?.name ?? name } });
    });
  };
  if (key) {
    return (
      <Dialog
        key="shown"
        title="Your new API key"
        onClose={() => (saved ? onClose() : setConfirming(true))}
        footer={
          <button type="button" className="button" onClick={onClose}>
            I have saved it — close
          </button>
        }
      >
        <div className="notice warning" role="alert">
          <p>
            <strong>Copy or download this key now.</strong> It is shown only this once: after you close this dialog,
            nobody — not you, not an admin — can see it again. If you lose it, revoke it and generate a new one.
          </p>
        </div>
        <div className="field">
          <label htmlFor="new-api-key">API key “{key.record.name}”</label>
          <input id="new-api-key" readOnly value={key.key} className="mono" onFocus={(e) => e.currentTarget.select()} />
          <small className="hint">
            {scopeLabel(key.record)}
            {key.record.scope === 'read' && ' (list, search, guidance and reading entries; saving is refused)'}
            {' · '}
            {key.record.expiresAt ? (
              <>
                expires <Expiry at={key.record.expiresAt} />
              </>
            ) : (
              'never expires'
            )}
          </small>
        </div>
        <div className="form-actions start">
          <CopyButton text={key.key} label="Copy API key" className="button" onCopied={() => setSaved(true)} />
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              downloadText(`cairn-api-key-${slug(key.record.name)}.txt`, `${key.key}\n`);
              setSaved(true);
            }}
          >
            Download
          </button>
        </div>
        <p className="hint">
          Send it as <code>Authorization: Bearer &lt;key&gt;</code> with{' '}
          <code>User-Agent: cairn-mcp-installer/1.0</code>, or paste it into a snippet from Datapacks › Connect a
          client.
        </p>
        {confirming && <UnsavedKeyDialog onKeep={() => setConfirming(false)} onDiscard={onClose} />}
      </Dialog>
    );
  }
  return (
    <Dialog title="Generate API key" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label className="field">
          <span>Key name</span>
          <input name="name" required maxLength={64} autoFocus placeholder="Claude Code on my laptop" />
          <small className="hint">Name it after where it will be used, so you know which one to revoke.</small>
        </label>
        <fieldset className="field">
          <legend>Access</legend>
          <div className="radio-row">
            <label className="radio">
              <input type="radio" name="scope" value="read-write" defaultChecked />
              <span>Read and write</span>
            </label>
            <label className="radio">
              <input type="radio" name="scope" value="read" />
              <span>Read only</span>
            </label>
          </div>
          <small className="hint">
            Read only: list, search, guidance and reading entries; saving, changing and deleting are refused. Give a
            read-only key to clients that only need to look things up.
          </small>
        </fieldset>
        <label className="field">
          <span>Expires</span>
          <select name="expires" aria-label="Expires" defaultValue="0">
            {EXPIRY_CHOICES.map((c) => (
              <option key={c.label} value={c.days ?? 0}>
                {c.label}
              </option>
            ))}
          </select>
          <small className="hint">
            An expired key stops working, just like a revoked one. Generate a new key before then.
          </small>
        </label>
        {error && <ErrorNotice message={error} />}
        <FormActions onCancel={onClose} label="Generate" busyLabel="Generating…" busy={busy} />
      </form>
    </Dialog>
  );
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'key';
