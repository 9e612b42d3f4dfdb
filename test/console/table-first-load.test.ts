/**
 * A table whose first rows are still on their way, in real Chromium: the Overview's top lists while
 * GET /api/stats/top has not answered. The page renders when something changes and then rests; it
 * does not render the table again and again until the rows come (which kept a busy machine's page
 * from ever drawing its chart or answering a screenshot), and the rows show once they are answered.
 * Renders are counted through React's DevTools hook, which React calls on every commit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import type { TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { browserSkipReason, openConsole, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();

/** Counts React's commits in `window.__commits` (the hook React looks for when it starts). */
const COUNT_COMMITS = `window.__commits = 0;
window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
  supportsFiber: true,
  renderers: new Map(),
  inject() { return 1; },
  onCommitFiberRoot() { window.__commits++; },
  onCommitFiberUnmount() {},
  onPostCommitFiberRoot() {},
  checkDCE() {},
};`;

const commits = (page: Page): Promise<number> => page.evaluate<number>('window.__commits');

/** Asserts that the page commits a handful of times at most in two seconds left alone. */
async function assertRests(page: Page, after: string): Promise<void> {
  const before = await commits(page);
  await new Promise((r) => setTimeout(r, 2000));
  const n = (await commits(page)) - before;
  // The event stream's snapshot or a query settling is a commit or two; a table rendering its way
  // round in a loop is hundreds.
  assert.ok(n < 10, `${n} renders in 2 s with the page left alone ${after}`);
}

describe('a table waiting for its first rows', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;
  const held: Route[] = [];

  before(async () => {
    ({ gw, mock, browser } = await startConsoleWorld());
    // One request, so that the top lists have rows to show once they are answered.
    const key = await gw.admin.key('laptop');
    await gw.openai(key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    c = await openConsole(browser, gw, { login: false, initScript: COUNT_COMMITS });
    page = c.page;
    await page.route(/\/api\/stats\/top/, (route) => void held.push(route));
    await page.goto(gw.running.loginUrl());
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('renders and rests while the rows are out, through a resize and a new range, then shows them', async () => {
    await page.getByRole('table', { name: /Top keys by spend/ }).waitFor();
    // The chart's figures come (GET /api/stats is not held): the page has rendered what it can.
    await page.locator('.usage-chart canvas').waitFor();
    assert.ok(held.length > 0, 'the top lists asked for their rows');
    await assertRests(page, 'after it loaded');
    // Events React renders at once: a resize, and a hash change to a range with no rows yet either.
    await page.setViewportSize({ width: 1280, height: 720 });
    await assertRests(page, 'after a resize');
    await page.goto(`${gw.url}/#/?range=30d`);
    await page.getByRole('heading', { name: /Spend per day, last 30 days/ }).waitFor();
    await assertRests(page, 'after a new range');
    assert.deepEqual(c.problems, []);

    await page.unroute(/\/api\/stats\/top/);
    // Requests the page has since given up on (the old range's) are already finished.
    for (const route of held.splice(0)) await route.continue().catch(() => undefined);
    await page
      .getByRole('table', { name: /Top keys by spend/ })
      .getByText('laptop')
      .waitFor();
    await page
      .getByRole('table', { name: /Top models by spend/ })
      .getByText('gpt-4o')
      .waitFor();
  });
});
