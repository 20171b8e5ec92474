import type { CimdFailureKind } from '../auth/oauth/cimd.js';
import { PINNED_CLIENTS_VARIABLE } from '../config/pinned-clients-file.js';
import { SECURITY_HEADERS } from './portal-route.js';

/** Whether the request is a browser opening a page (it asks for HTML), not a program that wants the JSON error. */
export function wantsPage(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/html');
}

/** A page's status for each failure: the vendor's host not reached is a gateway failure, not the user's request. */
const STATUS: Record<CimdFailureKind, 400 | 429 | 502> = { refused: 400, unreachable: 502, busy: 429 };

const htmlText = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The host a client_id URL names, or undefined when it is not a URL. */
function hostOf(clientId: string): string | undefined {
  try {
    return new URL(clientId).host;
  } catch {
    return undefined;
  }
}

/**
 * The page a browser gets when the app it is signing in cannot be identified from its Client ID
 * Metadata Document: what happened, and what to do (the operator, or an API key instead).
 */
export function cimdFailurePage(
  kind: CimdFailureKind,
  description: string,
  clientId: string,
  baseUrl: string,
  retryAfter?: string | null,
): Response {
  const host = htmlText(hostOf(clientId) ?? 'the app’s vendor');
  const detail = htmlText(description.length > 600 ? `${description.slice(0, 600)}…` : description);
  const what: Record<CimdFailureKind, string> = {
    unreachable: `<p>This app identifies itself with a registration document on <strong>${host}</strong> (its Client ID Metadata Document), and this Cairn server could not reach ${host} to read it. Servers behind a company firewall often cannot.</p>`,
    refused: `<p>This app identifies itself with a registration document on <strong>${host}</strong> (its Client ID Metadata Document), and this Cairn server could not accept it.</p>`,
    busy: `<p>This Cairn server has read too many app registration documents for your network in the last minutes. Try again ${retryAfter ? `in ${htmlText(retryAfter)} seconds` : 'in a few minutes'}.</p>`,
  };
  const operator =
    kind === 'busy'
      ? ''
      : `<li>Ask the operator of this Cairn to let the server reach <strong>${host}</strong> over HTTPS, or to pin the app’s document with the <code>${PINNED_CLIENTS_VARIABLE}</code> setting (see docs/configuration.md), then try signing in again.</li>`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed · Cairn</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1f2328}code{background:#f3f4f6;padding:0 .25rem;border-radius:3px}.detail{color:#57606a;font-size:.9rem;overflow-wrap:anywhere}</style>
</head>
<body>
<main>
<h1>Cairn could not sign this app in</h1>
${what[kind]}
<h2>What to do</h2>
<ul>
${operator}<li>Or connect this app with an API key instead: open the <a href="${htmlText(baseUrl)}/">Cairn portal</a>, choose <strong>Connect</strong> and your app, and use its Automated or Manual (API key) tab.</li>
</ul>
<p class="detail">Cairn said: ${detail}</p>
</main>
</body>
</html>
`;
  const headers: Record<string, string> = {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    ...SECURITY_HEADERS,
  };
  if (kind === 'busy' && retryAfter) headers['Retry-After'] = retryAfter;
  return new Response(html, { status: STATUS[kind], headers });
}
