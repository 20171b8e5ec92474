import { type FormEvent, useEffect, useState } from 'react';
import { api, messageOf } from '../api/client.js';
import { useSession } from '../session.js';
import { ErrorNotice } from '../ui/bits.js';
import { PageHead, settingsCrumb } from '../ui/page-parts.js';
import { ExportImportDialog } from './export-import-dialog.js';

/** Settings > Account: your name, and your password (your other sessions end when it changes). */
export function AccountPage() {
  const { me, refresh } = useSession();
  const [importing, setImporting] = useState(false);
  useEffect(() => {
    document.title = 'Account · Cairn';
  }, []);
  return (
    <section className="page">
      <PageHead crumb={settingsCrumb('Account')} title="Account" intro={`Signed in as ${me.user.email}.`} />
      <div className="card section">
        <h2>Name</h2>
        <p className="muted">How others see you in the portal and in who saved what.</p>
        <Form
          submit="Save name"
          done="Name saved."
          action={async (f) => {
            await api('PATCH', '/api/v1/me', { name: String(f.get('name') ?? '') });
            await refresh();
          }}
        >
          <label className="field grow">
            <span>Your name</span>
            <input name="name" required maxLength={100} defaultValue={me.user.name} autoComplete="name" />
          </label>
        </Form>
      </div>
      <div className="card section">
        <h2>Password</h2>
        <p className="muted">
          At least 10 characters, not a common or easily guessed one. Your other sessions end; API keys keep working.
        </p>
        <Form
          submit="Change password"
          done="Password changed. Your other sessions have ended."
          reset
          action={async (f) => {
            await api('POST', '/api/v1/me/password', {
              currentPassword: String(f.get('currentPassword') ?? ''),
              newPassword: String(f.get('newPassword') ?? ''),
            });
          }}
        >
          <label className="field">
            <span>Current password</span>
            <input name="currentPassword" type="password" required autoComplete="current-password" />
          </label>
          <label className="field">
            <span>New password</span>
            <input
              name="newPassword"
              type="password"
              required
              minLength={10}
              maxLength={128}
              autoComplete="new-password"
            />
          </label>
        </Form>
      </div>
      <div className="card section">
        <h2>Your data</h2>
        <p className="muted">
          Your personal datapacks and the entries you wrote in shared ones, every version, as JSON Lines. Import brings
          such a file (yours, or a datapack's export) into this Cairn; <code>cairn import</code> into any.
        </p>
        <div className="actions">
          <a className="button secondary" href="/api/v1/export?mine=true" download>
            Download my data
          </a>
          <button type="button" className="button secondary" onClick={() => setImporting(true)}>
            Import an export
          </button>
        </div>
        {importing && <ExportImportDialog onClose={() => setImporting(false)} />}
      </div>
    </section>
  );
}

function Form({
  children,
  submit,
  done,
  reset,
  action,
}: {
  children: React.ReactNode;
  submit: string;
  done: string;
  reset?: boolean;
  action: (f: FormData) => Promise<void>;
}) {
  const [state, setState] = useState<{ busy?: boolean; error?: string; done?: boolean }>({});
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    setState({ busy: true });
    try {
      await action(new FormData(form));
      if (reset) form.reset();
      setState({ done: true });
    } catch (err) {
      setState({ error: messageOf(err) });
    }
  };
  return (
    <form className="inline-form" onSubmit={onSubmit}>
      {children}
      <button type="submit" className="button secondary" disabled={state.busy}>
        {state.busy ? 'Saving…' : submit}
      </button>
      {state.error && <ErrorNotice message={state.error} />}
      {state.done && (
        <p className="notice" role="status">
          {done}
        </p>
      )}
    </form>
  );
}
