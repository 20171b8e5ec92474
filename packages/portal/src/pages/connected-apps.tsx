import { useState } from 'react';
import { api } from '../api/client.js';
import { describeRedirect } from '../oauth/oauth-query.js';
import { Empty, ErrorNotice, Loading, When } from '../ui/bits.js';
import { RevokeDialog } from '../ui/revoke-dialog.js';
import { useLoad } from '../ui/use-load.js';
import { clientLabel } from './people.js';

/** An OAuth app the user let in. */
export interface ConnectedApp {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  grantedAt: string | null;
  lastUsedAt: string | null;
  lastUsedClient?: string | null;
}

/** Settings > Connected apps: the OAuth clients the user allowed, with Revoke. */
export function ConnectedAppsPage() {
  const { data, error, loading, reload } = useLoad(() => api<{ apps: ConnectedApp[] }>('GET', '/api/v1/oauth/apps'));
  const [revoking, setRevoking] = useState<ConnectedApp>();
  const apps = data?.apps;
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <span>Settings</span> <span aria-hidden="true">/</span> <span aria-current="page">Connected apps</span>
      </nav>
      <div className="page-head">
        <div>
          <h1>Connected apps</h1>
          <p className="muted">Apps you allowed to use Cairn by signing in in the browser (OAuth). Revoke one and it is disconnected at once.</p>
        </div>
      </div>
      {error && <ErrorNotice message={error} onRetry={reload} />}
      {!apps && loading && <Loading what="connected apps" />}
      {apps && apps.length === 0 && (
        <Empty title="No connected apps">
          <p>When an app such as Claude Code or Cursor connects with “Sign in with Cairn”, it shows up here.</p>
        </Empty>
      )}
      {apps && apps.length > 0 && (
        <table className="table keys">
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Sends you back to</th>
              <th scope="col">Allowed</th>
              <th scope="col">Last connected</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {apps.map((a) => (
              <tr key={a.clientId}>
                <td data-label="App" className="strong">
                  {a.name}
                </td>
                <td data-label="Sends you back to">
                  {a.redirectUris
                    .map((u) => describeRedirect(u).label)
                    .filter((v, i, all) => all.indexOf(v) === i)
                    .join(', ') || '—'}
                </td>
                <td data-label="Allowed">
                  <When at={a.grantedAt} />
                </td>
                <td data-label="Last connected">
                  <When at={a.lastUsedAt} never="Never" />
                  {a.lastUsedClient && <div className="muted small">by {clientLabel(a.lastUsedClient)}</div>}
                </td>
                <td data-label="" className="row-actions">
                  <button type="button" className="button secondary small danger-text" aria-label={`Revoke ${a.name}`} onClick={() => setRevoking(a)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoking && (
        <RevokeDialog
          name={revoking.name}
          explanation={`${revoking.name} is disconnected at once: its tokens stop working, and it must ask you again in the browser to reconnect.`}
          path={`/api/v1/oauth/apps/${encodeURIComponent(revoking.clientId)}`}
          confirmLabel="Revoke access"
          onClose={() => setRevoking(undefined)}
          onRevoked={() => {
            setRevoking(undefined);
            reload();
          }}
        />
      )}
    </section>
  );
}
