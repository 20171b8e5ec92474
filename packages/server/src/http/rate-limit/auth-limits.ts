import type { MiddlewareHandler } from 'hono';
import { AUTH_BASE_PATH } from '../../auth/oauth/oauth-options.js';
import type { RateLimits } from '../../rate-limits/rate-limits.js';
import { addressKey, type ClientAddressOf } from '../client-address.js';
import { type Charge, chargeAttempt, isEndpoint, isFailure, refund } from './counted-attempt.js';
import { tooManyJson, tooManyOAuth } from './too-many.js';

/** A sign-in body is a few hundred bytes; past this it is not read for the account (and is refused). */
export const MAX_SIGN_IN_BODY = 64 * 1024;

/**
 * Limits on better-auth's unauthenticated endpoints, in front of them: failed e-mail sign-ins
 * per account and address, per account and per address, and OAuth client registrations per
 * address.
 */
export function authRouteLimits(limits: RateLimits, addressOf: ClientAddressOf): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const path = new URL(c.req.url).pathname;
    const address = addressKey(addressOf(c));

    if (isEndpoint(path, `${AUTH_BASE_PATH}/sign-in/email`)) {
      const body = await readCapped(c.req.raw, MAX_SIGN_IN_BODY);
      if (body === undefined)
        return c.json(
          {
            error: {
              code: 'invalid_input',
              message: `A sign-in request must be smaller than ${MAX_SIGN_IN_BODY / 1024} KiB.`,
            },
          },
          413,
        );
      const account = await accountIn(body, c.req.header('content-type') ?? '');
      const charges: Charge[] = [
        { limit: limits.signInPerAddress, key: address, refusal: 'Too many failed sign-ins from your network.' },
      ];
      if (account !== undefined) {
        charges.push(
          {
            limit: limits.signInPerAccountAndAddress,
            key: `${account}\n${address}`,
            refusal: 'Too many failed sign-ins to this account from your network.',
          },
          { limit: limits.signInPerAccount, key: account, refusal: 'Too many failed sign-ins to this account.' },
        );
      }
      const refused = await chargeAttempt(charges);
      if (refused)
        return tooManyJson(refused.wait, `${refused.refusal} Sign-in is paused for it, whatever the password.`);
      await next();
      // Only failures count: a success (or a server error) gives its charge back, and never clears earlier failures.
      if (!isFailure(c.res.status)) await refundAfter(charges);
      return;
    }

    if (isEndpoint(path, `${AUTH_BASE_PATH}/oauth2/register`)) {
      // Every registration counts, successful ones included: a flood of clients is the abuse.
      const wait = await limits.oauthRegistrationsPerAddress.take(address);
      if (wait > 0) return tooManyOAuth(wait, 'Too many OAuth client registrations from your network.');
    }
    return next();
  };
}

/**
 * Failures of the one-time secrets a stranger could guess (an invite at sign-up, a setup code at
 * exchange), per address. Successes give their charge back.
 */
export function codeFailureLimit(limits: RateLimits, addressOf: ClientAddressOf, what: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const charges: Charge[] = [
      {
        limit: limits.codeFailuresPerAddress,
        key: addressKey(addressOf(c)),
        refusal: `Too many failed ${what} from your network.`,
      },
    ];
    const refused = await chargeAttempt(charges);
    if (refused) return tooManyJson(refused.wait, refused.refusal);
    await next();
    if (!isFailure(c.res.status)) await refundAfter(charges);
  };
}

/** The answer is already made: a refund the store cannot take (it just went down) must not replace it. */
async function refundAfter(charges: Charge[]): Promise<void> {
  await refund(charges).catch(() => {});
}

/** The body as bytes, or undefined when it is larger than `max` (the request itself stays readable). */
export async function readCapped(request: Request, max: number): Promise<Buffer | undefined> {
  if (!request.body) return Buffer.alloc(0);
  if (Number(request.headers.get('content-length') ?? 0) > max) return undefined;
  const reader = request.clone().body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The account a sign-in names, as better-auth looks it up (lower case), for each body type it parses into fields. */
export async function accountIn(body: Buffer, contentType: string): Promise<string | undefined> {
  const type = contentType.toLowerCase();
  let email: unknown;
  try {
    if (/^application\/([a-z0-9.+-]*\+)?json/.test(type))
      email = (JSON.parse(new TextDecoder().decode(body)) as { email?: unknown } | null)?.email;
    else if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
      email = (await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData()).get(
        'email',
      );
    }
  } catch {
    return undefined;
  }
  return typeof email === 'string' ? email.toLowerCase() : undefined;
}
