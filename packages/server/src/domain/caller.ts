/** Who is asking, and through what; every domain verb takes one. */
export interface Caller {
  userId: string;
  /** The client that made the request (its User-Agent), recorded as provenance. */
  client: string | null;
  via: 'api_key' | 'legacy_api_key' | 'oauth' | 'session' | 'cli';
  keyId?: string;
}
