import { BoundedCache } from '../store/bounded-cache.js';

/** Most credentials remembered per instance; the oldest is forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The name a client gives itself in MCP `initialize` (`clientInfo`), as people read it: "Cursor 1.7".
 * Every API-key client sends the same installer User-Agent, so this is what tells them apart.
 * Control characters are dropped and the label is bounded: it is shown in the portal and the CLI.
 */
export function clientLabel(body: unknown): string | undefined {
  if (!isObject(body) || body.method !== 'initialize' || !isObject(body.params) || !isObject(body.params.clientInfo)) return undefined;
  const { name, title, version } = body.params.clientInfo;
  const shown = typeof title === 'string' && title.trim() ? title : name;
  if (typeof shown !== 'string') return undefined;
  const label = `${shown} ${typeof version === 'string' ? version : ''}`
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return label ? label.slice(0, 80) : undefined;
}

/**
 * Which client each credential last initialized with. A stateless server sees `initialize` once
 * per connection and then bare calls, so the name is remembered for the calls that follow it.
 */
export class ClientNames {
  private readonly names = new BoundedCache<string, string>(MAX_REMEMBERED);

  remember(credential: string, label: string): void {
    this.names.set(credential, label);
  }

  of(credential: string): string | undefined {
    return this.names.get(credential);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
