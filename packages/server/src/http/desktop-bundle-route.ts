import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { noBuiltInstaller } from './install-route.js';

/** Where every Cairn offers its Claude Desktop extension (beside the installer tarball). */
export const DESKTOP_BUNDLE_PATH = '/install/cairn-claude-desktop.mcpb';

interface Built {
  bytes: Uint8Array;
  etag: string;
  fileName: string;
}

/**
 * `GET /install/cairn-claude-desktop.mcpb`: the Claude Desktop extension for THIS Cairn's base URL, built by the
 * installer's own code once per process. Public: it holds no key (Claude Desktop asks for one at install).
 */
export function desktopBundleRoute(baseUrl: string) {
  let built: Promise<Built | undefined> | undefined;
  return async (c: Context): Promise<Response> => {
    built ??= build(baseUrl);
    const bundle = await built;
    if (!bundle) return noBuiltInstaller(c);
    if (c.req.header('if-none-match') === bundle.etag) return c.body(null, 304);
    return c.body(bundle.bytes as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${bundle.fileName}"`,
      'Content-Length': String(bundle.bytes.length),
      ETag: bundle.etag,
      'Cache-Control': 'no-cache',
    });
  };
}

async function build(baseUrl: string): Promise<Built | undefined> {
  let installer: typeof import('cairn-mcp-installer/desktop-bundle');
  try {
    installer = await import('cairn-mcp-installer/desktop-bundle');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  const bytes = installer.buildDesktopBundle(baseUrl);
  return {
    bytes,
    etag: `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`,
    fileName: installer.DESKTOP_BUNDLE_FILE,
  };
}
