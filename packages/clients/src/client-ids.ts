/** Every client the catalog knows, by its installer id. */
export const CLIENT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'codex',
  'kiro',
  'gemini-cli',
  'windsurf',
] as const;

/** A client's installer id. */
export type ClientId = (typeof CLIENT_IDS)[number];

/** Other names accepted for a client: `kiro-cli` and `kiro-ide` share one config file, so they run the same install. */
export const CLIENT_ALIASES: Readonly<Record<string, ClientId>> = {
  'kiro-cli': 'kiro',
  'kiro-ide': 'kiro',
};

/** The client id for an id or alias, or undefined when it names no known client. */
export function resolveClientId(idOrAlias: string): ClientId | undefined {
  const id = idOrAlias.trim().toLowerCase();
  if ((CLIENT_IDS as readonly string[]).includes(id)) return id as ClientId;
  return CLIENT_ALIASES[id];
}
