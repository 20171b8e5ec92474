import type { MiddlewareHandler } from 'hono';
import { edgeError } from './edge-error.js';

/**
 * Refuses URLs no route can serve sensibly, before any handler sees them: a path with a malformed
 * percent-escape (`%E0%A4%A`, a lone `%`), and a NUL character anywhere in the path or the query
 * (PostgreSQL cannot hold it in text, so it would be a 500 there and a silent miss on SQLite).
 */
export function urlGuard(): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    for (const segment of url.pathname.split('/')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return edgeError(
          c,
          400,
          `The path segment "${shorten(segment)}" has a malformed percent-escape; write "%" as "%25" and encode other characters as UTF-8 (%XX per byte).`,
        );
      }
      if (decoded.includes('\u0000'))
        return edgeError(
          c,
          400,
          'The path contains a NUL character (%00), which Cairn cannot store or look up; remove it.',
        );
    }
    for (const [name, value] of url.searchParams) {
      if (name.includes('\u0000') || value.includes('\u0000')) {
        return edgeError(
          c,
          400,
          `The query parameter "${shorten(name.replaceAll('\u0000', ''))}" contains a NUL character (%00), which Cairn cannot store or look up; remove it.`,
        );
      }
    }
    return next();
  };
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
