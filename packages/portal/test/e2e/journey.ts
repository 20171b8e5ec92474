import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { openBrowser, skipReason, startPortalServer } from './harness.js';

/** What a journey's tests use: the Cairn serving the portal, the browser and its page (set once `before` has run). */
export interface PortalJourney {
  /** Why the journey cannot run here (pass it to every test's `skip`), or undefined. */
  skip: string | undefined;
  server: Awaited<ReturnType<typeof startPortalServer>>;
  browser: Awaited<ReturnType<typeof openBrowser>>;
  page: Page;
  /** A fresh folder (a client's home, a download folder), made when `tempDir` names its prefix. */
  dir: string;
}

/**
 * The set-up every portal journey shares: a fresh Cairn serving the built portal and a browser with
 * a fresh profile, started before the file's tests and closed after them. `clipboard` lets the page
 * read and write the clipboard (copy buttons); `tempDir` makes a fresh folder with that prefix, removed after.
 * The file runs once per backend (runFileOnEachBackend).
 */
export function portalJourney(name: string, options: { clipboard?: boolean; tempDir?: string } = {}): PortalJourney {
  runFileOnEachBackend();
  const skip = skipReason();
  if (skip) console.log(`# SKIP portal ${name}: ${skip}`);
  const journey = { skip } as PortalJourney;
  before(async () => {
    if (skip) return;
    journey.server = await startPortalServer();
    journey.browser = await openBrowser();
    if (options.clipboard)
      await journey.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: journey.server.baseUrl,
      });
    journey.page = journey.browser.page;
    if (options.tempDir) journey.dir = mkdtempSync(join(tmpdir(), options.tempDir));
  });
  after(async () => {
    await journey.browser?.close();
    await journey.server?.close();
    if (journey.dir) rmSync(journey.dir, { recursive: true, force: true });
  });
  return journey;
}
