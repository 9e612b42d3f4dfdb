/**
 * What a person sees before the figures arrive, in real Chromium: the static shell of index.html
 * (the sidebar and page outline, in the saved theme, before any script of the app has run, under
 * the console's CSP), and the Overview's skeletons (cards, chart, top lists, recent requests) while
 * its data is on its way, never "No requests yet" or "—".
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertConsoleBuilt, axeViolations, browserSkipReason, launch, openConsole, screenshot } from './browser.js';
import { fillOverview } from './overview-data.js';

const skip = browserSkipReason();

/** A gate the test opens: requests routed through it wait until then. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

// The tests compile without the DOM's types: what the page function reads is typed here.
interface PageGlobals {
  getComputedStyle(el: unknown): { backgroundColor: string };
}
const background = (page: Page, selector: string): Promise<string> =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).backgroundColor);
const themeOf = (page: Page): Promise<string> => page.evaluate('document.documentElement.dataset.theme');

describe('the first paint and loading states', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway();
    browser = await launch();
    await fillOverview(gw, mock);
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  for (const [system, saved] of [
    ['light', 'dark'],
    ['dark', 'light'],
  ] as const)
    test(`before the app's script runs, the static shell is drawn in the saved ${saved} theme (the system's is ${system})`, async () => {
      const c = await openConsole(browser, gw, {
        theme: system,
        login: false,
        initScript: `localStorage.setItem('tollgate.theme', '${saved}')`,
      });
      try {
        await c.page.setViewportSize({ width: 1280, height: 720 });
        const app = gate();
        await c.page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
          await app.wait;
          await route.continue();
        });
        await c.page.goto(gw.running.loginUrl(), { waitUntil: 'commit' });
        const shell = c.page.locator('.boot-shell');
        await shell.waitFor({ state: 'visible' });
        assert.equal(await themeOf(c.page), saved);
        assert.equal(
          await c.page
            .locator('#root')
            .evaluate((el) => (el as unknown as { childElementCount: number }).childElementCount),
          0,
        );
        await screenshot(c.page, `first-paint-${saved}`);
        const shellSidebar = await shell.locator('.sidebar').boundingBox();
        const shellColour = await background(c.page, '.boot-shell .sidebar');

        app.open();
        const nav = c.page.getByRole('navigation', { name: 'Pages' });
        await nav.waitFor();
        await shell.waitFor({ state: 'hidden' });
        // The app takes the shell's place: the same sidebar, in the same colour, where it was.
        assert.deepEqual(await nav.boundingBox(), shellSidebar);
        assert.equal(await background(c.page, 'nav.sidebar'), shellColour);
        assert.equal(await themeOf(c.page), saved);
        assert.deepEqual(c.problems, []);
      } finally {
        await c.close();
      }
    });

  for (const theme of ['light', 'dark'] as const)
    test(`while its figures load, the Overview shows skeletons, not emptiness (${theme})`, async () => {
      const c = await openConsole(browser, gw, { theme });
      try {
        await c.page.setViewportSize({ width: 1440, height: 900 });
        const data = gate();
        await c.page.route(/\/api\/(stats|logs\?limit=8)/, async (route) => {
          await data.wait;
          await route.continue();
        });
        // A fresh load: nothing in the page's cache yet.
        await c.page.goto(`${gw.url}/#/?range=30d`);
        await c.page.reload();
        await c.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        const summary = c.page.getByRole('region', { name: 'Summary' });
        await summary.locator('.skeleton').first().waitFor();
        assert.equal(await summary.getAttribute('aria-busy'), 'true');
        // The four cards of the range, a skeleton for the figure and one for its note (the balance
        // has a query of its own, which may have answered already).
        for (const card of ['Spend', 'Tokens', 'Errors', 'Cache hits'])
          assert.equal(await summary.getByRole('link', { name: card }).locator('.skeleton').count(), 2, card);
        await c.page.getByRole('status', { name: /Loading spend for the last 30 days/ }).waitFor();
        for (const name of [/Top keys by spend/, /Top models by spend/, 'Recent requests'])
          assert.ok((await c.page.getByRole('table', { name }).locator('.skeleton-row').count()) > 0, String(name));
        const text = (await c.page.locator('main').textContent()) ?? '';
        assert.doesNotMatch(text, /No requests/);
        assert.doesNotMatch(text, /—/);
        await screenshot(c.page, `overview-loading-${theme}`);
        assert.deepEqual(await axeViolations(c.page), []);

        data.open();
        await c.page.locator('.usage-chart canvas').waitFor();
        await summary.locator('.skeleton').first().waitFor({ state: 'detached' });
        assert.equal(await summary.getAttribute('aria-busy'), 'false');
        assert.equal(await c.page.locator('main .skeleton').count(), 0);
        assert.deepEqual(c.problems, []);
      } finally {
        await c.close();
      }
    });
});
