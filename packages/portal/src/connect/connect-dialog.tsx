import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, api, messageOf } from '../api/client.js';
import { clientLabel } from '../pages/client-label.js';
import { useSession } from '../session.js';
import { CopyButton, CopyField, ErrorNotice, Snippet } from '../ui/bits.js';
import { Dialog } from '../ui/dialog.js';
import { UnsavedKeyDialog } from '../ui/unsaved-key.js';
import { AutomaticIntro } from './automatic-choice.js';
import { DesktopExtension } from './desktop-extension.js';
import { nextPollDelay } from './live-poll.js';
import {
  CLIENT_IDS,
  CLIENTS,
  type ClientId,
  guessOs,
  installerCommands,
  installerRunner,
  isCommand,
  KEY_PLACEHOLDER,
  type Method,
  manualSnippets,
  type Os,
  oauthNetworkNote,
  oauthObstacle,
  oauthSnippets,
  removalFor,
  stepsFor,
  VERIFICATION_PROMPT,
} from './snippets.js';

const METHODS: { id: Method; label: string }[] = [
  { id: 'automated', label: 'Automated' },
  { id: 'oauth', label: 'OAuth' },
  { id: 'manual', label: 'Manual (API key)' },
];
const OSES: { id: Os; label: string }[] = [
  { id: 'darwin', label: 'macOS' },
  { id: 'win32', label: 'Windows' },
  { id: 'linux', label: 'Linux' },
];

/** A key made in the Manual tab: kept per client while the dialog is open; saved once copied. */
interface MadeKey {
  key: string;
  saved: boolean;
  /** When the server made it: the dialog waits for a client using a key made since. */
  createdAt: string;
}

/** A client's first contact, as GET /api/v1/keys/connected reports it. */
interface Connection {
  client: string | null;
  userName: string;
  datapacks: number;
}

/** The installer's own check connects first (a bare call, so it shows its User-Agent): the dialog keeps waiting for the client itself. */
const isInstallerCheck = (c: Connection) => c.client?.startsWith('cairn-mcp-installer/') === true;

/**
 * "Waiting for your client…" until a key made since `since` is used, then who connected. One poll at a
 * time, at most one every 2 s, backing off after failures and 429s; it stops once the client itself is
 * seen and when the dialog closes.
 */
function LiveConnection({ since }: { since: string }) {
  const [connection, setConnection] = useState<Connection>();
  const byInstaller = connection !== undefined && isInstallerCheck(connection);
  const seen = connection !== undefined && !byInstaller;
  useEffect(() => {
    if (seen) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const poll = async () => {
      let retryAfter: number | undefined;
      try {
        const answer = await api<{ connection: Connection | null }>(
          'GET',
          `/api/v1/keys/connected?since=${encodeURIComponent(since)}`,
        );
        failures = 0;
        if (!live) return;
        if (answer.connection) {
          setConnection(answer.connection);
          if (!isInstallerCheck(answer.connection)) return;
        }
      } catch (error) {
        // Tried again later; the dialog's own steps still say how to verify.
        failures += 1;
        retryAfter = error instanceof ApiError ? error.retryAfterSeconds : undefined;
      }
      if (live) timer = setTimeout(() => void poll(), nextPollDelay(failures, retryAfter));
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [since, seen]);
  return (
    <p
      className={connection ? 'notice success live-connection' : 'hint live-connection'}
      role="status"
      aria-live="polite"
    >
      {!connection
        ? 'Waiting for your client… This shows when it first connects with the new key.'
        : byInstaller
          ? `✓ The installer's check connected as ${connection.userName} — ${connection.datapacks} datapack${connection.datapacks === 1 ? '' : 's'}. Waiting for your client itself…`
          : `✓ ${clientLabel(connection.client) ?? 'Your client'} connected as ${connection.userName} — ${connection.datapacks} datapack${connection.datapacks === 1 ? '' : 's'}`}
    </p>
  );
}

/** Datapacks > Connect: the MCP URL and, per client and method, what to run or paste. */
export function ConnectDialog({ onClose }: { onClose: () => void }) {
  const { config } = useSession();
  const [client, setClient] = useState<ClientId>('claude-code');
  const [method, setMethod] = useState<Method>('automated');
  const [os, setOs] = useState<Os>(() => guessOs(navigator.userAgent));
  const [keys, setKeys] = useState<Partial<Record<ClientId, MadeKey>>>({});
  const [confirming, setConfirming] = useState(false);
  const unsaved = Object.values(keys).some((k) => k && !k.saved);
  const requestClose = () => (unsaved ? setConfirming(true) : onClose());
  const tabsId = useId();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);

  const onTabKey = (e: KeyboardEvent, i: number) => {
    const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!d) return;
    e.preventDefault();
    const next = (i + d + METHODS.length) % METHODS.length;
    setMethod(METHODS[next]!.id);
    tabRefs.current[next]?.focus();
  };

  return (
    <Dialog title="Connect a client" onClose={requestClose} wide closeOnBackdrop>
      <CopyField
        label="MCP server URL"
        value={config.mcpUrl}
        copyLabel="Copy MCP server URL"
        hint="Every client uses this one address."
      />

      <fieldset className="client-picker">
        <legend>Client</legend>
        <div className="pills">
          {CLIENT_IDS.map((id) => (
            <label key={id} className={id === client ? 'pill selected' : 'pill'}>
              <input type="radio" name="client" value={id} checked={id === client} onChange={() => setClient(id)} />
              <span>{CLIENTS[id].displayName}</span>
            </label>
          ))}
          <span className="pill disabled" aria-disabled="true" title="Code editors that run in the browser">
            Browser-based code editors: coming soon
          </span>
        </div>
        <p className="hint">{CLIENTS[client].kind}</p>
      </fieldset>

      <div className="tabs">
        <div className="tab-list" role="tablist" aria-label="Connection method">
          {METHODS.map((m, i) => (
            <button
              key={m.id}
              ref={(el) => {
                tabRefs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`${tabsId}-${m.id}`}
              aria-selected={method === m.id}
              aria-controls={`${tabsId}-panel`}
              tabIndex={method === m.id ? 0 : -1}
              onClick={() => setMethod(m.id)}
              onKeyDown={(e) => onTabKey(e, i)}
            >
              {m.label}
            </button>
          ))}
        </div>
        <label className="os-select">
          <span>System</span>
          <select aria-label="System" value={os} onChange={(e) => setOs(e.target.value as Os)}>
            {OSES.map((o) => (
              <option key={o.id} value={o.id}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      </div>

      <div className="tab-panel" role="tabpanel" id={`${tabsId}-panel`} aria-labelledby={`${tabsId}-${method}`}>
        {method === 'automated' && <AutomatedPanel key={client} client={client} os={os} />}
        {method === 'oauth' && <OAuthPanel client={client} os={os} onUseManual={() => setMethod('manual')} />}
        {method === 'manual' && (
          <ManualPanel
            key={client}
            client={client}
            os={os}
            made={keys[client]}
            onMade={(key, createdAt) => setKeys((all) => ({ ...all, [client]: { key, saved: false, createdAt } }))}
            onSaved={() =>
              setKeys((all) => (all[client] ? { ...all, [client]: { ...all[client]!, saved: true } } : all))
            }
          />
        )}
      </div>
      {confirming && <UnsavedKeyDialog onKeep={() => setConfirming(false)} onDiscard={onClose} />}
    </Dialog>
  );
}

function Steps({ steps }: { steps: string[] }) {
  return (
    <ol className="steps">
      {steps.map((s) => (
        <li key={s}>{s}</li>
      ))}
    </ol>
  );
}

function VerifyAndRemove({ client, method, os }: { client: ClientId; method: Method; os: Os }) {
  const { config } = useSession();
  const removal = removalFor(
    client,
    method,
    config.mcpUrl,
    installerRunner(config.baseUrl, config.installerPublished === true),
  );
  return (
    <div className="verify-remove">
      <div>
        <h3>Check it works</h3>
        <p>
          Ask the agent: <q>{VERIFICATION_PROMPT}</q>{' '}
          <CopyButton text={VERIFICATION_PROMPT} label="Copy verification prompt" />
        </p>
        <p className="hint">It should answer with your datapacks from Cairn.</p>
      </div>
      <div>
        <h3>To remove it</h3>
        <p>
          {isCommand(removal) ? (
            <>
              <code>{removal}</code> <CopyButton text={removal} label="Copy removal command" />
            </>
          ) : (
            removal
          )}
        </p>
        {method === 'automated' && <p className="hint">{CLIENTS[client].staysAfterUninstall(os)}</p>}
      </div>
    </div>
  );
}

function Unsupported({ reason }: { reason: string }) {
  return (
    <div className="notice" role="note">
      <p>
        <strong>Not available for this client.</strong> {reason}
      </p>
    </div>
  );
}

function AutomatedPanel({ client, os }: { client: ClientId; os: Os }) {
  const { config } = useSession();
  const [code, setCode] = useState<{ code: string; createdAt: string; expiresAt: string }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [auto, setAuto] = useState(false);
  const info = CLIENTS[client].methods.automated;
  if (!info.supported) return <Unsupported reason={info.reason} />;
  const mint = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setCode(await api<{ code: string; createdAt: string; expiresAt: string }>('POST', '/api/v1/setup-codes', {}));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const cmds =
    code &&
    installerCommands(client, config.baseUrl, config.mcpUrl, code.code, config.installerPublished === true, {
      auto,
      marketplace: config.pluginMarketplace,
    });
  return (
    <div className="panel-body">
      <AutomaticIntro client={client} auto={auto} onAuto={setAuto} marketplace={config.pluginMarketplace} />
      {!cmds ? (
        <div className="reserve">
          <button type="button" className="button" onClick={mint} disabled={busy}>
            {busy ? 'Creating…' : 'Create installer command'}
          </button>
          <p className="hint">The command carries a one-time setup code (no key in your shell history).</p>
        </div>
      ) : (
        <>
          <Snippet label="Installer command" text={cmds.command} />
          <p className="hint">
            The setup code works once and expires{' '}
            <time dateTime={code!.expiresAt}>
              {new Date(code!.expiresAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
            </time>
            .{cmds.fromThisServer && " If npm cannot reach the installer package, run this server's own copy instead:"}
          </p>
          {cmds.fromThisServer && <Snippet label="Installer command (from this server)" text={cmds.fromThisServer} />}
          <p className="hint">{CLIENTS[client].afterInstall}</p>
          <LiveConnection since={code!.createdAt} />
        </>
      )}
      {error && <ErrorNotice message={error} onRetry={mint} />}
      <VerifyAndRemove client={client} method="automated" os={os} />
    </div>
  );
}

function OAuthPanel({ client, os, onUseManual }: { client: ClientId; os: Os; onUseManual: () => void }) {
  const { config } = useSession();
  const s = stepsFor(client, 'oauth', config.mcpUrl, os);
  if (!s.supported) return <Unsupported reason={s.reason} />;
  const obstacle = oauthObstacle(client, config);
  if (obstacle) {
    return (
      <div className="panel-body">
        <div className="notice warning" role="note">
          <p>
            <strong>OAuth cannot work here.</strong> {obstacle}
          </p>
          <button type="button" className="button secondary small" onClick={onUseManual}>
            Open the Manual (API key) tab
          </button>
        </div>
      </div>
    );
  }
  const network = oauthNetworkNote(client, config.oauthPinnedClients);
  return (
    <div className="panel-body">
      <p>No key: the client opens your browser once to sign in to Cairn.</p>
      {network && (
        <div className="notice" role="note">
          <p>{network}</p>
        </div>
      )}
      <Steps steps={s.steps} />
      {oauthSnippets(client, config.mcpUrl, os).map((sn) => (
        <Snippet key={sn.label} label={sn.label} text={sn.text} />
      ))}
      <VerifyAndRemove client={client} method="oauth" os={os} />
    </div>
  );
}

function ManualPanel({
  client,
  os,
  made,
  onMade,
  onSaved,
}: {
  client: ClientId;
  os: Os;
  made?: MadeKey;
  onMade: (key: string, createdAt: string) => void;
  onSaved: () => void;
}) {
  const { config } = useSession();
  const key = made?.key;
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const s = stepsFor(client, 'manual', config.mcpUrl, os);
  if (!s.supported) return <Unsupported reason={s.reason} />;
  const generate = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('keyName') ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      const res = await api<{ key: string; record: { createdAt: string } }>('POST', '/api/v1/keys', { name });
      onMade(res.key, res.record.createdAt);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="panel-body">
      {/* A step that is the command itself (with <API_KEY>) would repeat, placeholder and all, the snippet below that holds the key. */}
      <Steps steps={s.steps.map((step) => (step.includes(KEY_PLACEHOLDER) ? 'Run the command below.' : step))} />
      {key ? (
        <div className="notice warning" role="status">
          <p>
            <strong>Your new key is in the snippet below, and only there.</strong> Copy it now: it stays here while this
            dialog is open, but Cairn cannot show it again after the dialog closes.
          </p>
        </div>
      ) : (
        <form className="inline-form" onSubmit={generate}>
          <label className="field">
            <span>Key name</span>
            <input
              name="keyName"
              defaultValue={`${CLIENTS[client].displayName} on ${OS_NAME[os]}`}
              required
              maxLength={64}
            />
          </label>
          <button type="submit" className="button" disabled={busy}>
            {busy ? 'Generating…' : 'Generate API key'}
          </button>
          <p className="hint full">
            Or replace &lt;API_KEY&gt; with a key you saved: a key made earlier can never be shown again.
          </p>
        </form>
      )}
      {error && <ErrorNotice message={error} />}
      {client === 'claude-desktop' && <DesktopExtension />}
      {manualSnippets(client, config.mcpUrl, os, key).map((sn) => (
        <Snippet
          key={sn.label}
          label={sn.label}
          text={sn.text}
          onCopied={(text) => key && text.includes(key) && onSaved()}
        />
      ))}
      {made && <LiveConnection since={made.createdAt} />}
      <VerifyAndRemove client={client} method="manual" os={os} />
    </div>
  );
}

const OS_NAME: Record<Os, string> = { darwin: 'macOS', win32: 'Windows', linux: 'Linux' };
