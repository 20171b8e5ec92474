import type { MiddlewareHandler } from 'hono';

/**
 * Headers every answer carries, whichever route (or error path) produced it. A route that chose a
 * value keeps it (the portal's own CSP and Referrer-Policy, discovery's public caching); the rest
 * get the defaults a JSON API should send: browsers never sniff a type, never render an answer as a
 * page or in a frame, never leak the URL onward, and never keep an answer on disk unless its route
 * said it may be cached.
 */
const ALWAYS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** An answer that is not a page: nothing in it may run or load, and nothing may frame it. */
const NOT_A_PAGE_CSP = "default-src 'none'; frame-ancestors 'none'";

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const wanted: Record<string, string> = { ...ALWAYS };
    const type = c.res.headers.get('content-type') ?? '';
    if (!type.startsWith('text/html')) wanted['Content-Security-Policy'] = NOT_A_PAGE_CSP;
    wanted['Cache-Control'] = 'no-store';
    const missing = Object.entries(wanted).filter(([name]) => !c.res.headers.has(name));
    if (missing.length === 0) return;
    try {
      for (const [name, value] of missing) c.res.headers.set(name, value);
    } catch {
      // A Response whose headers are immutable (a redirect or a proxied answer): copy it once.
      const copy = new Response(c.res.body, c.res);
      for (const [name, value] of missing) copy.headers.set(name, value);
      c.res = copy;
    }
  };
}
