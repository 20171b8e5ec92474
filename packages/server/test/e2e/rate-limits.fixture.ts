// Requests the rate-limit journeys make (rate-limits.test.ts, rate-limits-two-instances.test.ts), and the check on a 429.
import assert from 'node:assert/strict';

export const PASSWORD = 'correct horse battery';

/** A sign-in as the portal and the OAuth sign-in page send it, optionally claiming to be forwarded for `forwardedFor`. */
export function signInAttempt(base: string, email: string, password: string, forwardedFor?: string): Promise<Response> {
  return fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: base,
      ...(forwardedFor && { 'x-forwarded-for': forwardedFor }),
    },
    body: JSON.stringify({ email, password }),
  });
}

export const randomAddress = () =>
  `203.0.113.${1 + Math.floor(Math.random() * 250)}, 198.51.100.${1 + Math.floor(Math.random() * 250)}`;

export async function assertTooMany(answer: Response, pattern: RegExp): Promise<void> {
  assert.equal(answer.status, 429, await answer.clone().text());
  const wait = Number(answer.headers.get('retry-after'));
  assert.ok(Number.isInteger(wait) && wait >= 1, `Retry-After: ${answer.headers.get('retry-after')}`);
  const body = (await answer.json()) as {
    error: { code: string; message: string; retryAfterSeconds: number; retryAt: string };
  };
  assert.equal(body.error.code, 'rate_limited');
  assert.match(body.error.message, pattern);
  assert.match(body.error.message, /Try again in \d+ (seconds|minutes) \(after \d\d:\d\d UTC\)/);
  assert.equal(body.error.retryAfterSeconds, wait);
  assert.ok(
    Math.abs(Date.parse(body.error.retryAt) - (Date.now() + wait * 1000)) < 5000,
    'retryAt is when Retry-After ends',
  );
}

export function register(base: string, forwardedFor?: string): Promise<Response> {
  return fetch(`${base}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) },
    body: JSON.stringify({
      client_name: 'flood',
      redirect_uris: ['http://127.0.0.1:53682/cb'],
      token_endpoint_auth_method: 'none',
    }),
  });
}
