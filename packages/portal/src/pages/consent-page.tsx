import { api } from '../api/client.js';
import { describeRedirect, SCOPE_WORDS } from '../oauth/oauth-query.js';
import { useSession } from '../session.js';
import { ErrorNotice, Loading } from '../ui/bits.js';
import { useLoad } from '../ui/use-load.js';

interface ClientInfo {
  clientId: string;
  name: string;
  uri: string | null;
  redirectUris: string[];
}

/**
 * The OAuth consent page: which app, where it will send the browser back, what it may do, for which
 * organization. Allow and Deny are a plain form post; Cairn answers 303 to the app.
 */
export function ConsentPage({ query }: { query: URLSearchParams }) {
  const { me } = useSession();
  const clientId = query.get('client_id') ?? '';
  const { data, error, reload } = useLoad(
    () => api<{ client: ClientInfo }>('GET', `/api/v1/oauth/clients/${encodeURIComponent(clientId)}`),
    [clientId],
  );
  const problem = query.get('cairn_error');
  const signed = new URLSearchParams(query);
  signed.delete('cairn_error');
  const redirect = describeRedirect(query.get('redirect_uri') ?? '');
  const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
  const orgs = me.organizations.map((o) => o.name);

  if (!clientId || !query.get('redirect_uri')) {
    return (
      <section className="auth">
        <div className="card auth-card">
          <h1>Nothing to approve</h1>
          <p>This page is part of connecting an app to Cairn. Start connecting again from the app.</p>
        </div>
      </section>
    );
  }
  return (
    <section className="auth">
      <div className="card auth-card consent">
        {error && <ErrorNotice message={error} onRetry={reload} />}
        {!data && !error && <Loading what="the app's details" />}
        {data && (
          <>
            <h1>Connect {data.client.name} to Cairn?</h1>
            <p className="muted">
              Signed in as <strong>{me.user.email}</strong>. Only allow apps you started connecting yourself.
            </p>
            <dl className="consent-facts">
              <dt>App</dt>
              <dd>
                <strong>{data.client.name}</strong>
                {data.client.uri && <span className="muted small"> ({data.client.uri})</span>}
              </dd>
              <dt>Sends you back to</dt>
              <dd>
                <strong>{redirect.label}</strong>
                {redirect.loopback ? <span className="muted small"> — an app running on your own machine</span> : null}
              </dd>
              <dt>It will be able to</dt>
              <dd>
                <ul className="consent-scopes">
                  {scopes.map((s) => (
                    <li key={s}>{SCOPE_WORDS[s] ?? s}</li>
                  ))}
                </ul>
              </dd>
              <dt>Organization</dt>
              <dd>{orgs.length ? orgs.join(', ') : 'Your personal datapacks only'}</dd>
            </dl>
            {problem && <ErrorNotice message={problem} />}
            <form method="post" action="/oauth/consent" className="form-actions">
              <input type="hidden" name="oauth_query" value={signed.toString()} />
              <button type="submit" name="accept" value="false" className="button secondary">
                Deny
              </button>
              <button type="submit" name="accept" value="true" className="button">
                Allow
              </button>
            </form>
            <p className="hint">You can disconnect it any time in Settings › Connected apps.</p>
          </>
        )}
      </div>
    </section>
  );
}
