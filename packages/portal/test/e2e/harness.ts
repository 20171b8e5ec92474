// What every portal browser test needs: a built portal, a real Cairn serving it, and Debian's chromium.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';

const PORTAL_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCREENSHOTS = join(PORTAL_ROOT, 'test', 'screenshots');
const README_SCREENSHOTS = join(PORTAL_ROOT, '..', '..', 'docs', 'screenshots');

/** Debian's chromium, as design.md says (playwright cannot download its own browser here). */
export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or undefined when they can. */
export function skipReason(): string | undefined {
  if (!existsSync(CHROMIUM))
    return `chromium is not installed at ${CHROMIUM} (apt-get install -y chromium); the portal's browser tests are skipped`;
  return undefined;
}

/** Builds the portal when dist/ is missing or older than its sources (the server serves packages/portal/dist). */
export function ensurePortalBuilt(): void {
  const index = join(PORTAL_ROOT, 'dist', 'index.html');
  const fresh = () => existsSync(index) && newestSource() <= statSync(index).mtimeMs;
  if (fresh()) return;
  // Test files run in parallel processes: one builds, the others wait for it (vite empties dist/ first).
  const lock = join(PORTAL_ROOT, '.build-lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`waited 2 min for another test's portal build; remove ${lock} if no test is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    if (fresh()) return;
    const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: PORTAL_ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('vite build failed: the portal could not be built for the browser tests');
  } finally {
    rmdirSync(lock);
  }
}

/** The portal as users reach it: a real Cairn (on the runner's backend) that serves the built portal at `/`. */
export async function startPortalServer(): Promise<{
  cairn: TestCairn;
  baseUrl: string;
  mcpUrl: string;
  close: () => Promise<void>;
}> {
  ensurePortalBuilt();
  const cairn = await startTestCairn();
  return { cairn, baseUrl: cairn.baseUrl, mcpUrl: cairn.mcpUrl, close: () => cairn.close() };
}

/** A browser with a fresh profile, and a page that records console errors. */
export async function openBrowser(): Promise<{
  browser: Browser;
  context: BrowserContext;
  page: Page;
  errors: string[];
  close: () => Promise<void>;
}> {
  // launch() gives chromium a new empty profile of its own (it refuses --user-data-dir).
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const context = await browser.newContext({ viewport: { width: 1200, height: 820 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // 401 from /api/v1/me before sign-in is how the portal learns it is signed out.
    if (m.type() === 'error' && !/401 \(Unauthorized\)/.test(m.text())) errors.push(m.text());
  });
  return {
    browser,
    context,
    page,
    errors,
    close: async () => {
      await browser.close();
    },
  };
}

/** Whether this run refreshes the README's screenshots in docs/screenshots (`npm run screenshots`); otherwise tests leave tracked files alone. */
const REFRESH_README_SCREENSHOTS = ['1', 'true', 'yes'].includes(
  (process.env.CAIRN_REFRESH_SCREENSHOTS ?? '').toLowerCase(),
);

/**
 * Saves a screenshot under test/screenshots/<name>.png (ignored by git: look there after a run). One
 * marked `readme` is also written over docs/screenshots/<name>.png, but only by `npm run screenshots`.
 */
export async function shot(
  page: Page,
  name: string,
  opts: { fullPage?: boolean; readme?: boolean } = {},
): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    fullPage: opts.fullPage ?? false,
    animations: 'disabled',
  });
  if (opts.readme && REFRESH_README_SCREENSHOTS)
    await page.screenshot({
      path: join(README_SCREENSHOTS, `${name}.png`),
      fullPage: opts.fullPage ?? false,
      animations: 'disabled',
    });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (WCAG 2.x A and AA rules) on the page as it is and fails on any critical or serious
 * violation, naming the rule and the elements.
 */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  // Evaluated through the debugging protocol: the portal's CSP (rightly) refuses injected script tags.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: object,
          ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(found, [], `axe on ${where}`);
}

/** Signs up the first account of a fresh Cairn through the form, and waits for the Datapacks page. */
export async function signUpFirst(
  page: Page,
  baseUrl: string,
  who = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    password: 'correct horse battery',
    organization: 'Analytical Engines',
  },
  screenshot?: string,
): Promise<void> {
  await page.goto(baseUrl);
  await page.getByRole('heading', { name: 'Create your Cairn account' }).waitFor();
  await page.getByLabel('Your name').fill(who.name);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByLabel(/Organization name/).fill(who.organization);
  if (screenshot) await shot(page, screenshot);
  await assertAccessible(page, 'the first sign-up page');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
}

function newestSource(): number {
  const clients = fileURLToPath(new URL('../../../clients/src/', import.meta.url));
  const files = [
    join(PORTAL_ROOT, 'index.html'),
    join(PORTAL_ROOT, 'vite.config.ts'),
    ...walk(join(PORTAL_ROOT, 'src')),
    ...walk(clients),
  ];
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) yield* walk(join(dir, e.name));
    else yield join(dir, e.name);
  }
}
