import type { Caller } from '../../domain/caller.js';
import type { Limit } from '../../rate-limits/rate-limits.js';

/** The credential a request is counted against: the API key, else the user behind the OAuth token or portal session. */
export function credentialKey(caller: Caller): string {
  return caller.keyId ? `key:${caller.keyId}` : `${caller.via}:${caller.userId}`;
}

/** 0 when the caller's credential may make this request, else the seconds to wait. */
export function takeRequest(limit: Limit, caller: Caller): Promise<number> {
  return limit.take(credentialKey(caller));
}

/** What a refused caller is told, naming what the limit is counted on. */
export function requestLimitMessage(caller: Caller, perMinute: number): string {
  const whose = caller.keyId
    ? 'this API key'
    : caller.via === 'oauth'
      ? 'your account (all its OAuth connections)'
      : 'your account';
  return `Too many requests for ${whose} (at most ${perMinute} a minute).`;
}
