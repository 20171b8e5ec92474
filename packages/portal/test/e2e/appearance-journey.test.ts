// The focus ring is visible against the page (≥ 3:1) and the portal follows a dark system theme,
// with text and buttons still readable (≥ 4.5:1). Colours are read from the rendered page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('appearance journey');
const { skip } = journey;

type Rgb = [number, number, number];
const rgb = (css: string): Rgb => {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css);
  assert.ok(m, `not a colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};
// WCAG 2 relative luminance and contrast ratio.
const luminance = (c: Rgb) => {
  const [r, g, bl] = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
};
const contrast = (a: Rgb, c: Rgb) => {
  const [hi, lo] = [luminance(a), luminance(c)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};
const styleOf = (page: Page, selector: string, prop: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), prop);

test('the keyboard focus ring stands out from the page by at least 3:1', { skip, timeout: 120_000 }, async () => {
  const { server, page } = journey;
  await signUpFirst(page, server.baseUrl);
  const page_bg = rgb(
    await styleOf(page, 'body', 'background-color').then((c) =>
      c === 'rgba(0, 0, 0, 0)' ? styleOf(page, 'html', 'background-color') : c,
    ),
  );
  // Tab until a button has keyboard focus, then read its ring: the outermost box-shadow's colour.
  let ring: string | undefined;
  for (let i = 0; i < 30 && !ring; i++) {
    await page.keyboard.press('Tab');
    ring = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el && el.tagName === 'BUTTON' && el.matches(':focus-visible') ? getComputedStyle(el).boxShadow : undefined;
    });
  }
  assert.ok(ring && ring !== 'none', 'a focused button shows a ring');
  const colours = [...ring.matchAll(/rgba?\([^)]*\)/g)].map((m) => m[0]);
  // A translucent ring is seen blended with the page behind it.
  const alpha = Number(/rgba\([^,]+,[^,]+,[^,]+,\s*([\d.]+)\)/.exec(colours.at(-1)!)?.[1] ?? 1);
  const outer = rgb(colours.at(-1)!).map((v, i) => Math.round(alpha * v + (1 - alpha) * page_bg[i]!)) as Rgb;
  assert.ok(
    contrast(outer, page_bg) >= 3,
    `ring ${colours.at(-1)} on page ${page_bg}: ${contrast(outer, page_bg).toFixed(2)}:1`,
  );
});

test('a dark system theme gives a dark page with readable text and buttons', { skip, timeout: 120_000 }, async () => {
  const { server, browser: b } = journey;
  const context = await b.browser.newContext({ colorScheme: 'dark' });
  try {
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/signin`);
    await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    const bg = rgb(await styleOf(page, 'html', 'background-color'));
    assert.ok(luminance(bg) < 0.05, `page background ${bg} is dark`);
    const text = rgb(await styleOf(page, 'h1', 'color'));
    assert.ok(contrast(text, bg) >= 4.5, `heading ${text} on ${bg}`);
    const button = page.getByRole('button', { name: 'Sign in' });
    const [fg, face] = await button.evaluate((el) => [
      getComputedStyle(el).color,
      getComputedStyle(el).backgroundColor,
    ]);
    assert.ok(contrast(rgb(fg), rgb(face)) >= 4.5, `button text ${fg} on ${face}`);
    const input = page.getByLabel('Email');
    const inputBg = rgb(await input.evaluate((el) => getComputedStyle(el).backgroundColor));
    assert.ok(luminance(inputBg) < 0.05, `fields are dark too: ${inputBg}`);
    // axe checks contrast too, so the dark theme's pages pass it as the light ones do.
    await assertAccessible(page, 'the sign-in page, dark');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('correct horse battery');
    await button.click();
    await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
    await assertAccessible(page, 'the Datapacks page, dark');
    await page.getByRole('link', { name: 'Personal' }).first().click();
    await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
    await assertAccessible(page, 'a datapack, dark');
  } finally {
    await context.close();
  }
});

test('a move to another page is announced to screen readers with its heading', { skip, timeout: 120_000 }, async () => {
  const { server, page } = journey;
  await page.goto(`${server.baseUrl}/datapacks`);
  await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
  const announcer = page.getByTestId('route-announcer');
  assert.equal(await announcer.getAttribute('aria-live'), 'polite');
  await page.getByRole('link', { name: 'Personal' }).first().click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  await page.waitForFunction(
    () => document.querySelector('[data-testid=route-announcer]')?.textContent === 'Personal, page loaded',
  );
  await page.getByRole('link', { name: 'API keys' }).first().click();
  await page.waitForFunction(() =>
    /^API keys, page loaded$/i.test(document.querySelector('[data-testid=route-announcer]')?.textContent ?? ''),
  );
});
