import { useCallback, useEffect, useState } from 'react';
import { api, messageOf, setUnauthorizedHandler } from './api/client.js';
import type { Me, PortalConfig } from './api/types.js';
import { isOAuthSignIn, resumeAuthorizeUrl } from './oauth/oauth-query.js';
import { AccountPage } from './pages/account-page.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AuditPage } from './pages/audit-page.js';
import { AuthPage } from './pages/auth-page.js';
import { ConnectedAppsPage } from './pages/connected-apps.js';
import { ConsentPage } from './pages/consent-page.js';
import { DatapackPage } from './pages/datapack-page.js';
import { DatapacksPage } from './pages/datapacks-page.js';
import { OrganizationPage } from './pages/organization-page.js';
import { ReplacedRulesPage } from './pages/replaced-page.js';
import { RuleUsagePage } from './pages/rule-usage-page.js';
import { SearchPage } from './pages/search-page.js';
import { TrashPage } from './pages/trash-page.js';
import { Link, match, navigate, useLocation } from './router.js';
import { SessionContext } from './session.js';
import { ErrorNotice, Loading } from './ui/bits.js';
import { RouteAnnouncer } from './ui/route-announcer.js';

type State =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'signed-out'; config: PortalConfig }
  | { kind: 'signed-in'; me: Me; config: PortalConfig };

const PUBLIC = new Set(['/signin', '/signup']);

/** The portal: loads who is signed in, then routes. */
export function App() {
  const { path, query } = useLocation();
  const [state, setState] = useState<State>({ kind: 'loading' });

  const load = useCallback(async () => {
    try {
      const config = await api<PortalConfig>('GET', '/api/v1/config', undefined, { authRequired: false });
      if (config.sessionCookie === false) {
        setState({ kind: 'signed-out', config });
        return;
      }
      try {
        const me = await api<Me>('GET', '/api/v1/me', undefined, { authRequired: false });
        setState({ kind: 'signed-in', me, config });
      } catch (e) {
        if ((e as { status?: number }).status === 401) setState({ kind: 'signed-out', config });
        else throw e;
      }
    } catch (e) {
      setState({ kind: 'error', message: messageOf(e) });
    }
  }, []);

  useEffect(() => {
    void load();
    setUnauthorizedHandler(() =>
      setState((s) => (s.kind === 'signed-in' ? { kind: 'signed-out', config: s.config } : s)),
    );
    return () => setUnauthorizedHandler(undefined);
  }, [load]);

  // Signed-out people land on sign-in (or sign-up when this Cairn has no users yet); signed-in people skip those pages.
  useEffect(() => {
    if (state.kind === 'signed-out' && !PUBLIC.has(path)) {
      const next = path === '/' ? '' : `?next=${encodeURIComponent(path + location.search)}`;
      navigate(state.config.signUpOpen ? '/signup' : `/signin${next}`, { replace: true });
    }
    if (state.kind === 'signed-in' && path === '/signin' && isOAuthSignIn(query)) {
      // Already signed in: carry on with the app's authorization request (a real redirect).
      window.location.assign(resumeAuthorizeUrl(query));
      return;
    }
    if (state.kind === 'signed-in' && (PUBLIC.has(path) || path === '/')) {
      const next = query.get('next');
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/datapacks', { replace: true });
    }
  }, [state, path, query]);

  useEffect(() => {
    document.title = `${titleFor(path)} · Cairn`;
  }, [path]);

  if (state.kind === 'loading')
    return (
      <Shell>
        <Loading what="Cairn" />
      </Shell>
    );
  if (state.kind === 'error')
    return (
      <Shell>
        <ErrorNotice message={state.message} onRetry={() => void load()} />
      </Shell>
    );
  if (state.kind === 'signed-out') {
    return (
      <Shell>
        <AuthPage
          mode={path === '/signup' ? 'signup' : 'signin'}
          config={state.config}
          invite={query.get('invite') ?? undefined}
          oauth={path === '/signin' && isOAuthSignIn(query) ? query : undefined}
          onSignedIn={load}
        />
      </Shell>
    );
  }
  const session = { me: state.me, config: state.config, refresh: load };
  return (
    <SessionContext.Provider value={session}>
      <Shell
        me={state.me}
        path={path}
        onSignOut={async () => {
          await api('POST', '/api/auth/sign-out', {}).catch(() => undefined);
          setState({ kind: 'signed-out', config: state.config });
          navigate('/signin', { replace: true });
        }}
      >
        <Routes path={path} query={query} />
      </Shell>
    </SessionContext.Provider>
  );
}

function Routes({ path, query }: { path: string; query: URLSearchParams }) {
  if (path === '/datapacks') return <DatapacksPage />;
  if (path === '/search') return <SearchPage query={query} />;
  if (path === '/trash') return <TrashPage />;
  if (path === '/audit') return <AuditPage />;
  if (path === '/rules/usage') return <RuleUsagePage />;
  if (path === '/rules/replaced') return <ReplacedRulesPage datapack={query.get('datapack') ?? undefined} />;
  if (path === '/oauth/consent') return <ConsentPage query={query} />;
  if (path === '/settings/connected-apps') return <ConnectedAppsPage />;
  const dp = match('/datapacks/:id', path) ?? match('/datapacks/:id/entries/:entryId', path);
  if (dp) return <DatapackPage id={dp.id!} entryId={dp.entryId} />;
  if (path === '/settings/api-keys') return <ApiKeysPage />;
  if (path === '/settings/account') return <AccountPage />;
  if (path === '/settings/organization') return <OrganizationPage />;
  if (path === '/' || PUBLIC.has(path)) return <Loading what="your datapacks" />;
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. Go to <Link to="/datapacks">your datapacks</Link>.
      </p>
    </section>
  );
}

function titleFor(path: string): string {
  if (path === '/signin') return 'Sign in';
  if (path === '/signup') return 'Sign up';
  if (path.startsWith('/datapacks')) return 'Datapacks';
  if (path === '/search') return 'Search';
  if (path === '/trash') return 'Trash';
  if (path === '/audit') return 'Audit';
  if (path === '/rules/usage') return 'Rule usage';
  if (path === '/rules/replaced') return 'Replaced rules';
  if (path === '/settings/api-keys') return 'API keys';
  if (path === '/settings/account') return 'Account';
  if (path === '/settings/organization') return 'Organization';
  if (path === '/settings/connected-apps') return 'Connected apps';
  if (path === '/oauth/consent') return 'Connect an app';
  return 'Cairn';
}

const NAV = [
  { to: '/datapacks', label: 'Datapacks' },
  { to: '/search', label: 'Search' },
  { to: '/trash', label: 'Trash' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/settings/connected-apps', label: 'Connected apps' },
  { to: '/settings/organization', label: 'Organization' },
  { to: '/audit', label: 'Audit' },
  { to: '/rules/usage', label: 'Rule usage' },
  { to: '/rules/replaced', label: 'Replaced rules' },
];

function Shell({
  children,
  me,
  path,
  onSignOut,
}: {
  children: React.ReactNode;
  me?: Me;
  path?: string;
  onSignOut?: () => void;
}) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand" aria-label="Cairn home">
            <img src="/favicon.svg" alt="" width="26" height="26" /> Cairn
          </Link>
          {me && (
            <nav aria-label="Main" className="nav">
              {NAV.map((n) => (
                <Link key={n.to} to={n.to} aria-current={path?.startsWith(n.to) ? 'page' : undefined}>
                  {n.label}
                </Link>
              ))}
            </nav>
          )}
          {me && (
            <div className="account">
              <Link
                to="/settings/account"
                className="account-name"
                title={`${me.user.email}: your account`}
                aria-current={path === '/settings/account' ? 'page' : undefined}
              >
                {me.user.name || me.user.email}
              </Link>
              <button type="button" className="button secondary small" onClick={onSignOut}>
                Sign out
              </button>
            </div>
          )}
        </div>
      </header>
      <main id="main" className="main">
        {children}
      </main>
      <RouteAnnouncer path={path ?? window.location.pathname} />
    </>
  );
}
