import { automaticOffer, CLIENTS, type ClientId } from './snippets.js';

/**
 * What the Automated tab's installer sets up for this client: the entry, and automatic mode where the
 * client has it — a checkbox where it is opt-in (adds --auto), a plain statement for Kiro (always),
 * and no word of skills for a client that has none.
 */
export function AutomaticIntro({
  client,
  auto,
  onAuto,
  marketplace,
}: {
  client: ClientId;
  auto: boolean;
  onAuto: (auto: boolean) => void;
  marketplace?: string | undefined;
}) {
  const name = CLIENTS[client].displayName;
  const offer = automaticOffer(client);
  const where = `It needs Node.js 20.18.1 or newer. Run it on the computer where ${name} runs.`;
  if (offer.kind === 'none') {
    return (
      <p>
        The installer writes {name}'s entry with a fresh API key, and {name} uses Cairn when you ask it to. {where}
      </p>
    );
  }
  const adds = (
    <ul className="hint">
      {offer.adds.map((a) => (
        <li key={a}>{a}</li>
      ))}
    </ul>
  );
  if (offer.kind === 'always') {
    return (
      <>
        <p>
          The installer writes {name}'s entry with a fresh API key and always sets up automatic mode too, so the agent
          consults and saves to Cairn unasked and your prompts are captured (secrets redacted). {where} It adds:
        </p>
        {adds}
      </>
    );
  }
  return (
    <>
      <p>
        The installer writes {name}'s entry with a fresh API key. {where}
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={auto} onChange={(e) => onAuto(e.target.checked)} />
        <span>
          Automatic mode: the agent also consults and saves to Cairn unasked, and your prompts and its final answers are
          captured (secrets redacted, never tool calls)
        </span>
      </label>
      {auto && adds}
      {auto && client === 'claude-code' && (
        <p className="hint">
          {marketplace
            ? `The plugin comes from this Cairn's marketplace, ${marketplace}.`
            : "The plugin comes from the installer's own copy (~/.cairn/claude-marketplace); re-run the command to update it."}
        </p>
      )}
    </>
  );
}
