import type { Auth } from '../better-auth.js';
import { hashOAuthToken } from './oauth-options.js';

/** What a valid OAuth access token stands for. */
export interface OAuthGrant {
  userId: string;
  clientId: string;
  /** The scopes the user granted this token. */
  scopes: string[];
}

/** Why a token was refused: `expired` tells the client to refresh. */
export type OAuthTokenCheck =
  | { ok: true; grant: OAuthGrant }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'wrong_audience' };

/** The OAuth scope that opens the MCP tools; a token granted only other scopes (offline_access) does not. */
export const MCP_SCOPE = 'mcp';

interface AccessTokenRow {
  clientId: string;
  userId?: string | null;
  sessionId?: string | null;
  expiresAt: Date | string;
  revoked?: Date | string | null;
  resources?: string[] | string | null;
  scopes?: string[] | string | null;
}

/** Checks OAuth access tokens presented to `/mcp` against the provider's own table (opaque tokens, stored hashed). */
export class OAuthTokenVerifier {
  constructor(
    private readonly auth: Auth,
    private readonly resource: string,
  ) {}

  /** Looks the token up and applies expiry, revocation, audience, client and session checks. */
  async verify(token: string): Promise<OAuthTokenCheck> {
    const ctx = await this.auth.$context;
    const row = await ctx.adapter.findOne<AccessTokenRow>({
      model: 'oauthAccessToken',
      where: [{ field: 'token', value: hashOAuthToken(token) }],
    });
    if (!row?.userId) return { ok: false, reason: 'unknown' };
    if (row.revoked) return { ok: false, reason: 'revoked' };
    if (new Date(row.expiresAt).getTime() <= Date.now()) return { ok: false, reason: 'expired' };
    // RFC 8707: a token minted for another resource must never open Cairn's MCP endpoint.
    if (!stringList(row.resources).includes(this.resource)) return { ok: false, reason: 'wrong_audience' };
    const client = await ctx.adapter.findOne<{ disabled?: boolean | null }>({
      model: 'oauthClient',
      where: [{ field: 'clientId', value: row.clientId }],
    });
    if (!client || client.disabled) return { ok: false, reason: 'revoked' };
    if (row.sessionId) {
      const session = await ctx.adapter.findOne<{ expiresAt: Date | string }>({
        model: 'session',
        where: [{ field: 'id', value: row.sessionId }],
      });
      if (!session || new Date(session.expiresAt).getTime() <= Date.now()) return { ok: false, reason: 'expired' };
    }
    return { ok: true, grant: { userId: row.userId, clientId: row.clientId, scopes: scopesOf(row.scopes) } };
  }
}

/** The provider stores scopes space-separated or as a JSON list, depending on the adapter. */
function scopesOf(value: AccessTokenRow['scopes']): string[] {
  if (typeof value === 'string' && !value.trim().startsWith('[')) return value.split(/\s+/).filter(Boolean);
  return stringList(value);
}

function stringList(value: string[] | string | null | undefined): string[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [value];
    } catch {
      return [value];
    }
  }
  return [];
}
