/**
 * Every console page in both themes: rendered in real Chromium against a gateway with data in it,
 * scanned with axe-core (no serious or critical finding), and saved as a screenshot under
 * test-artifacts/console/ for people (and CI artifacts) to look at.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import {
  assertConsoleBuilt,
  axeViolations,
  browserSkipReason,
  gotoPage,
  launch,
  openConsole,
  screenshot,
} from './browser.js';

const skip = browserSkipReason();

const PAGES = [
  { key: '1', heading: 'Overview', name: 'overview' },
  { key: '2', heading: 'Wallet', name: 'wallet' },
  { key: '3', heading: 'Keys', name: 'keys' },
  { key: '4', heading: 'Usage log', name: 'logs' },
  { key: '5', heading: 'Models', name: 'models' },
  { key: '6', heading: 'Lines', name: 'lines' },
  { key: '7', heading: 'Groups', name: 'groups' },
  { key: '8', heading: 'Playground', name: 'playground' },
  { key: '9', heading: 'Connect', name: 'connect' },
  { key: '0', heading: 'Settings', name: 'settings' },
] as const;

describe('console pages', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway();
    browser = await launch();
    const a = gw.admin;
    await a.topup(25);
    await a.client.call('adjustWallet', { body: { amountMicro: -1_500_000, note: 'top-up entered twice' } });
    // Above the balance, so the low-balance warning shows on Overview and Wallet.
    await a.client.call('updateSettings', { body: { lowBalanceMicro: 30_000_000, retentionDays: 90 } });
    await a.group('team', '1.2', ['gpt-4o', 'gpt-4o-mini']);
    await a.line({
      name: 'local',
      baseUrl: `${mock.url}/v1`,
      models: ['gpt-4o', 'gpt-4o-mini'],
      modelMap: { 'gpt-4o': 'mock-small', 'gpt-4o-mini': 'mock-small' },
      priority: 1,
    });
    await a.line({ name: 'flaky', baseUrl: `${mock.url}/s/status=503/v1`, models: ['gpt-4o'], priority: 2 });
    const laptop = await a.key('laptop');
    await a.key('ci', { group: 'team', quotaMicro: 2_000_000, rpm: 30 });
    const client = gw.openai(laptop);
    for (let i = 0; i < 6; i++)
      await client.chat.completions.create({
        model: i % 2 ? 'gpt-4o-mini' : 'gpt-4o',
        messages: [{ role: 'user', content: `hello ${i}` }],
      });
    await client.chat.completions
      .create({ model: 'gpt-5', messages: [{ role: 'user', content: 'no line' }] })
      .catch(() => undefined);
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`every page in the ${theme} theme passes axe and is captured`, async () => {
      const c = await openConsole(browser, gw, { theme });
      try {
        for (const p of PAGES) {
          await gotoPage(c.page, p.key, p.heading);
          await c.settled();
          await screenshot(c.page, `${p.name}-${theme}`);
          assert.deepEqual(await axeViolations(c.page), [], `${p.name} (${theme})`);
        }
        await gotoPage(c.page, '4', 'Usage log');
        await c.page.locator('.log-body').first().click();
        await c.page.getByRole('dialog').waitFor();
        await screenshot(c.page, `log-details-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `log details (${theme})`);
        await c.page.keyboard.press('Escape');
        await gotoPage(c.page, '6', 'Lines');
        await c.page.keyboard.press('n');
        await c.page.getByRole('dialog', { name: 'Add a line' }).waitFor();
        await screenshot(c.page, `add-line-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `add line (${theme})`);
        await c.page.keyboard.press('Escape');
        // The connect preview (a dry run: nothing written) with its diff.
        await gotoPage(c.page, '9', 'Connect');
        await c.page.getByRole('button', { name: 'Connect Claude Code' }).click();
        const connect = c.page.getByRole('dialog', { name: 'Connect Claude Code' });
        await connect.getByRole('button', { name: 'Preview changes' }).click();
        await connect.getByLabel('Changes to', { exact: false }).first().waitFor();
        await screenshot(c.page, `connect-preview-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `connect preview (${theme})`);
        await c.page.keyboard.press('Escape');
        // The LAN confirmation on the Settings page (cancelled).
        await gotoPage(c.page, '0', 'Settings');
        await c.page.getByLabel('Bind address').fill('0.0.0.0');
        await c.page.getByRole('button', { name: 'Save changes' }).click();
        await c.page.getByRole('dialog', { name: 'Expose the gateway to your network?' }).waitFor();
        await screenshot(c.page, `settings-lan-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `settings LAN confirmation (${theme})`);
        await c.page.keyboard.press('Escape');
        assert.deepEqual(c.problems, []);
      } finally {
        await c.close();
      }
    });
  }

  test('the login screen passes axe in both themes', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const c = await openConsole(browser, gw, { theme, login: false });
      try {
        await c.page.goto(`${gw.url}/`);
        await c.page.getByRole('heading', { name: 'Log in to the console' }).waitFor();
        await screenshot(c.page, `login-${theme}`);
        assert.deepEqual(await axeViolations(c.page), []);
        assert.deepEqual(c.problems, []);
      } finally {
        await c.close();
      }
    }
  });
});
