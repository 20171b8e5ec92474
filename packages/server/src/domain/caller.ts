import type { KeyScope } from '../store/types.js';

/** Who is asking, and through what; every domain verb takes one. */
export interface Caller {
  userId: string;
  /** The client that made the request (its User-Agent), recorded as provenance. */
  client: string | null;
  via: 'api_key' | 'legacy_api_key' | 'oauth' | 'session' | 'cli';
  keyId?: string;
  /** What the credential allows: a `read` key reaches only the reading verbs. Sessions, the CLI and OAuth `mcp` grants are read-write. */
  scope: KeyScope;
}
