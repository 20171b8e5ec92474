import { type FormEvent, useEffect, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { PortalConfig } from '../api/types.js';
import { resumeAuthorizeUrl } from '../oauth/oauth-query.js';
import { Link } from '../router.js';
import { ErrorNotice } from '../ui/bits.js';

type InviteSummary = { valid: false } | { valid: true; organization: string; invitedBy: string; role: string };

/** Sign in, or sign up (the first account, or with an invite link). */
export function AuthPage({
  mode,
  config,
  invite,
  oauth,
  onSignedIn,
}: {
  mode: 'signin' | 'signup';
  config: PortalConfig;
  invite?: string;
  oauth?: URLSearchParams;
  onSignedIn: () => Promise<void>;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // Whose invitation this is, or that the link no longer works (used, expired, cancelled or cut short).
  const [invitation, setInvitation] = useState<InviteSummary>();
  useEffect(() => {
    if (mode !== 'signup' || !invite) return;
    api<InviteSummary>('GET', `/api/v1/invites/${encodeURIComponent(invite)}`, undefined, { authRequired: false })
      .then(setInvitation)
      .catch(() => setInvitation(undefined));
  }, [mode, invite]);
  const first = config.signUpOpen === true && !invite;
  const closed = mode === 'signup' && !invite && config.signUpOpen === false;

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const value = (k: string) => String(f.get(k) ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      if (mode === 'signup') {
        await api(
          'POST',
          '/api/v1/signup',
          {
            email: value('email'),
            name: value('name'),
            password: String(f.get('password') ?? ''),
            ...(invite ? { invite } : value('organization') ? { organization: value('organization') } : {}),
          },
          { authRequired: false },
        );
      } else {
        await api(
          'POST',
          '/api/auth/sign-in/email',
          { email: value('email'), password: String(f.get('password') ?? '') },
          { authRequired: false },
        );
      }
      if (oauth) {
        // An app is waiting: resume its authorization request, which redirects to consent or back to the app.
        window.location.assign(resumeAuthorizeUrl(oauth));
        return;
      }
      await onSignedIn();
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <section className="auth">
      <div className="card auth-card">
        <h1>
          {mode === 'signin'
            ? 'Sign in to Cairn'
            : invitation?.valid
              ? `Join ${invitation.organization} on Cairn`
              : invite
                ? 'Join your team on Cairn'
                : 'Create your Cairn account'}
        </h1>
        {oauth && (
          <p className="muted">
            An app wants to connect to your Cairn. Sign in first; next you decide whether to allow it.
          </p>
        )}
        {mode === 'signup' && first && (
          <p className="muted">
            You are the first person here: your account creates the organization, and you invite the others.
          </p>
        )}
        {mode === 'signup' && invite && invitation?.valid && (
          <p className="muted">
            {invitation.invitedBy} invited you to join {invitation.organization}
            {invitation.role === 'admin' ? ' as an admin' : ''}: your account joins it.
          </p>
        )}
        {mode === 'signup' && invite && !invitation && (
          <p className="muted">You were invited: your account joins the organization that invited you.</p>
        )}
        {mode === 'signup' && invite && invitation?.valid === false ? (
          <div className="notice" role="status">
            <p>
              This invite link is not valid: it was used already, has expired (links last 7 days), was cancelled or was
              cut short. Ask your admin for a new one, or sign in if you have an account.
            </p>
            <Link to="/signin" className="button">
              Go to sign in
            </Link>
          </div>
        ) : closed ? (
          <div className="notice" role="status">
            <p>
              This Cairn already has users, so people join by invitation. Ask an organization admin for an invite link,
              or sign in if you have an account.
            </p>
            <Link to="/signin" className="button">
              Go to sign in
            </Link>
          </div>
        ) : (
          <form onSubmit={submit} className="form" noValidate={false}>
            {mode === 'signup' && (
              <label className="field">
                <span>Your name</span>
                <input name="name" autoComplete="name" required />
              </label>
            )}
            <label className="field">
              <span>Email</span>
              <input name="email" type="email" autoComplete="email" required />
            </label>
            <label className="field">
              <span>Password</span>
              <input
                name="password"
                type="password"
                autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
                minLength={mode === 'signup' ? 10 : undefined}
                required
              />
              {mode === 'signup' && (
                <small className="hint">
                  At least 10 characters and not a common password: a few unrelated words work well.
                </small>
              )}
            </label>
            {mode === 'signup' && first && (
              <label className="field">
                <span>
                  Organization name <span className="muted">(optional)</span>
                </span>
                <input name="organization" autoComplete="organization" placeholder="Acme" />
              </label>
            )}
            {error && <ErrorNotice message={error} />}
            <button type="submit" className="button wide" disabled={busy}>
              {busy ? 'Please wait…' : mode === 'signin' ? 'Sign in' : 'Create account'}
            </button>
          </form>
        )}
        <p className="auth-switch">
          {mode === 'signin' ? (
            config.signUpOpen ? (
              <>
                New here? <Link to="/signup">Create the first account</Link>
              </>
            ) : (
              <>No account? Ask an organization admin for an invite link.</>
            )
          ) : (
            <>
              Already have an account? <Link to="/signin">Sign in</Link>
            </>
          )}
        </p>
      </div>
    </section>
  );
}
