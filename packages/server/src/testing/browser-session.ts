/** What one request of a browser session answered: the status, the JSON body (undefined when empty) and the headers. */
export interface SessionAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * A browser-like session for tests of the portal's API: keeps its cookie and sends the portal's
 * Origin, JSON in and out. `baseUrl` is read at each request, so a suite can make a session before
 * its Cairn has started.
 */
export function browserSession(
  baseUrl: () => string,
  userAgent?: string,
): (path: string, init?: { method?: string; body?: unknown }) => Promise<SessionAnswer> {
  let cookie = '';
  return async (path, init = {}) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        origin: new URL(baseUrl()).origin,
        'content-type': 'application/json',
        ...(userAgent && { 'user-agent': userAgent }),
        ...(cookie && { cookie }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
    const set = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    if (set) cookie = set;
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
}
