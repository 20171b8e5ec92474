import { useState } from 'react';
import { api } from '../api/client.js';
import type { ConnectedApp } from '../api/types.js';
import { describeRedirect } from '../oauth/oauth-query.js';
import { Empty, When } from '../ui/bits.js';
import { LoadedList, PageHead, settingsCrumb, TableHead } from '../ui/page-parts.js';
import { RevokeButton, RevokeDialog } from '../ui/revoke-dialog.js';
import { useLoad } from '../ui/use-load.js';
import { clientLabel } from './people.js';

/** Settings > Connected apps: the OAuth clients the user allowed, with Revoke. */
export function ConnectedAppsPage() {
  const { data, error, loading, reload } = useLoad(() => api<{ apps: ConnectedApp[] }>('GET', '/api/v1/oauth/apps'));
  const [revoking, setRevoking] = useState<ConnectedApp>();
  return (
    <section className="page">
      <PageHead
        crumb={settingsCrumb('Connected apps')}
        title="Connected apps"
        intro="Apps you allowed to use Cairn by signing in in the browser (OAuth). Revoke one and it is disconnected at once."
      />
      <LoadedList
        load={{ error, loading, reload }}
        items={data?.apps}
        what="connected apps"
        empty={
          <Empty title="No connected apps">
            <p>When an app such as Claude Code or Cursor connects with “Sign in with Cairn”, it shows up here.</p>
          </Empty>
        }
      >
        {(apps) => (
          <table className="table keys">
            <TableHead columns={['App', 'Sends you back to', 'Allowed', 'Last connected']} actions />
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
                    <RevokeButton name={a.name} onClick={() => setRevoking(a)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadedList>
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
