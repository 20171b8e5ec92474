import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Signs in the way the portal does (better-auth checks Origin on cookie-setting POSTs); returns the cookie header. */
export async function signIn(baseUrl: string, email: string, password = 'correct horse battery'): Promise<string> {
  const answer = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ email, password }),
  });
  if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${await answer.text()}`);
  return answer.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** What a browser request answered (redirects are not followed). */
export interface BrowserAnswer {
  status: number;
  location: URL | null;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * A browser navigation (GET), or a form POST when `form` is given, without following redirects.
 * Not fetch(): undici sends Sec-Fetch-Mode: cors, and better-auth then answers a JSON
 * {redirect, url} instead of the 302 a browser gets.
 */
export function browserRequest(
  target: string,
  cookie: string,
  form?: Record<string, string>,
  origin = new URL(target).origin,
): Promise<BrowserAnswer> {
  return new Promise((resolve, reject) => {
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const headers: Record<string, string> = { cookie, 'sec-fetch-mode': 'navigate', accept: 'text/html' };
    if (body)
      Object.assign(headers, {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
        origin,
      });
    const req = request(target, { method: form ? 'POST' : 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          location: res.headers.location ? new URL(res.headers.location, target) : null,
          headers: res.headers,
          body: text,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
