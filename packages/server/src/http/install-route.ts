import { createReadStream, existsSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';

/** Where the build puts the installer tarball; the same place whether running from src/ (tsx) or dist/. */
export const INSTALLER_TARBALL = fileURLToPath(new URL('../../dist/install/cairn-mcp-installer.tgz', import.meta.url));

/** The answer of an install route on a Cairn started from a checkout that was never built. */
export function noBuiltInstaller(c: Context): Response {
  const message =
    'This Cairn was started without a built installer. The operator should run "npm run build" in the repository and restart.';
  return c.json({ error: { code: 'not_found', message } }, 404);
}

/**
 * `GET /install/cairn-mcp-installer.tgz`: this server's own installer, so
 * `npx -y <base>/install/cairn-mcp-installer.tgz --client <id> --url <base>` works on any machine that reaches it.
 */
export function installerRoute(tarball = INSTALLER_TARBALL) {
  return (c: Context): Response => {
    if (!existsSync(tarball)) return noBuiltInstaller(c);
    const { size, mtimeMs } = statSync(tarball);
    const etag = `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    const body = Readable.toWeb(createReadStream(tarball)) as ReadableStream;
    return c.body(body, 200, {
      'Content-Type': 'application/gzip',
      'Content-Length': String(size),
      ETag: etag,
      'Cache-Control': 'no-cache',
    });
  };
}
