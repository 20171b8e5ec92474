/** An error the portal can show as it is: the server's message already says what to do. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole answer, for the errors that carry more than a message (a refused duplicate carries the existing entry). */
    readonly body?: unknown,
    /** Seconds the server asked to wait (Retry-After on 429 and 503), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let onUnauthorized: (() => void) | undefined;

/** Called when a request meant for a signed-in user gets 401 (the session ended). */
export function setUnauthorizedHandler(handler: (() => void) | undefined): void {
  onUnauthorized = handler;
}

/** better-auth answers `{ code, message }`; Cairn answers `{ error: { code, message } }`. */
function errorFrom(status: number, body: unknown): ApiError {
  const b = body as { error?: { code?: string; message?: string }; code?: string; message?: string } | undefined;
  const e = b?.error ?? (b?.message ? b : undefined);
  if (e?.code === 'INVALID_EMAIL_OR_PASSWORD')
    return new ApiError(
      status,
      'invalid_credentials',
      'That email and password do not match an account. Check both and try again.',
    );
  if (e?.message) return new ApiError(status, e.code ?? 'error', e.message, body);
  if (status === 401) return new ApiError(status, 'unauthorized', 'Your session has ended. Sign in again.');
  if (status >= 500)
    return new ApiError(
      status,
      'server_error',
      `Cairn had a problem (HTTP ${status}). Try again in a moment; if it keeps happening, check the server log.`,
    );
  return new ApiError(status, 'error', `Cairn refused the request (HTTP ${status}). Reload the page and try again.`);
}

/** Calls the JSON API (same origin, session cookie). Throws ApiError with a message fit to show. */
export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  /** `contentType`: the body is a string sent as it is (a file), with that type, instead of JSON. */
  opts: { authRequired?: boolean; contentType?: string } = {},
): Promise<T> {
  let res: Response;
  const raw = opts.contentType !== undefined && typeof body === 'string';
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined
          ? { Accept: 'application/json' }
          : { Accept: 'application/json', 'Content-Type': raw ? opts.contentType! : 'application/json' },
      ...(body !== undefined && { body: raw ? (body as string) : JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(
      0,
      'network',
      'Cairn could not be reached. Check your connection (and that the server is running), then try again.',
    );
  }
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    if (res.status === 401 && opts.authRequired !== false) onUnauthorized?.();
    const error = errorFrom(res.status, data);
    const wait = Number(res.headers.get('retry-after'));
    throw Number.isFinite(wait) && wait > 0
      ? new ApiError(error.status, error.code, error.message, error.body, wait)
      : error;
  }
  return data as T;
}

/** The message to show for anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the portal. Reload the page and try again.';
}
