/**
 * One money format in real Chromium, the contract's (gateway/contract/money.ts), as the tray and the
 * CLI print it: balances and totals to the cent with the exact amount on hover, each request's cost
 * at a fixed six decimals (in the log, the Overview, the drawer), all in tabular figures.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { usd, usdCost, usdExact } from '../../gateway/contract/money.js';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { browserSkipReason, openConsole, screenshot, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();
const SIX = /^\$\d+\.\d{6}$/;

async function tabular(l: Locator): Promise<string> {
  return l.evaluate(
    (el: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { fontVariantNumeric: string } }).getComputedStyle(el)
        .fontVariantNumeric,
  );
}

describe('one money format in the console', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    // An amount with micro-dollars, so the cents shown and the exact amount differ.
    ({ gw, mock, browser } = await startConsoleWorld({ walletMicro: 12_345_678_901 }));
    const key = await gw.admin.key('laptop');
    for (const text of ['one', 'two'])
      await gw.openai(key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: text }] });
    c = await openConsole(browser, gw);
    page = c.page;
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('the balance: cents with separators, the exact amount on hover, tabular figures', async () => {
    const balance = (await gw.admin.wallet()).balanceMicro;
    assert.notEqual(usd(balance), usdExact(balance));
    await page.goto(`${gw.url}/#/wallet`);
    const hero = page.getByTestId('balance').locator('.money');
    await waitFor(async () => (await hero.textContent()) === usd(balance), `balance ${usd(balance)}`);
    assert.match(usd(balance), /^\$12,345\.\d\d$/);
    assert.equal(await hero.getAttribute('title'), usdExact(balance));
    assert.equal(await tabular(hero), 'tabular-nums');
    const side = page.locator('.sidebar-balance .money');
    assert.equal(await side.textContent(), usd(balance));
    assert.equal(await side.getAttribute('title'), usdExact(balance));
    await screenshot(page, 'money-wallet');
  });

  test('request costs at six decimals in the log, the drawer and the Overview; the log total to the cent', async () => {
    const rows = await gw.admin.logs();
    await page.goto(`${gw.url}/#/logs`);
    const costs = page.locator('.log-body .money');
    await waitFor(async () => (await costs.count()) === rows.length, 'every row');
    assert.deepEqual(
      await costs.allTextContents(),
      rows.map((r) => usdCost(r.costMicro)),
    );
    for (const t of await costs.allTextContents()) assert.match(t, SIX);
    assert.equal(await tabular(costs.first()), 'tabular-nums');
    const total = rows.reduce((t, r) => t + r.costMicro, 0);
    const sum = page.getByTestId('log-summary-cost');
    await waitFor(async () => (await sum.textContent()) === usd(total), 'the total');
    assert.equal(await sum.getAttribute('title'), usdExact(total));
    await costs.first().click();
    assert.equal(await page.getByTestId('detail-cost').textContent(), usdCost(rows[0]!.costMicro));
    await page.keyboard.press('Escape');
    await page.goto(`${gw.url}/#/`);
    // The recent requests' costs (the top lists beside them show totals, to the cent).
    const recent = page.getByRole('table', { name: 'Recent requests' }).locator('td .money');
    await waitFor(async () => (await recent.count()) === rows.length, 'recent requests');
    for (const t of await recent.allTextContents()) assert.match(t, SIX);
    assert.deepEqual(c.problems, []);
  });
});
