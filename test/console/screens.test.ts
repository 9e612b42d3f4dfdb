/**
 * Every console page in both themes: rendered in real Chromium against a gateway with data in it,
 * scanned with axe-core (no serious or critical finding), and saved as a screenshot under
 * test-artifacts/console/ for people (and CI artifacts) to look at, at a desktop window (1440×900)
 * and a laptop's (1280×720), where no page may scroll sideways. The pages are the navigation's
 * (which pages/registry.tsx feeds), so a page added there is captured here without a second list.
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
  type ConsolePage,
} from './browser.js';

const skip = browserSkipReason();

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

/** The pages as the sidebar lists them: shortcut key, label (the page's heading) and path. */
async function navPages(c: ConsolePage): Promise<{ key: string; label: string; name: string }[]> {
  const links = c.page.getByRole('navigation', { name: 'Pages' }).locator('a.nav-link');
  const out = [];
  for (const link of await links.all()) {
    const href = (await link.getAttribute('href')) ?? '';
    const name = href.replace(/^#\/?/, '') || 'overview';
    out.push({ key: await link.locator('kbd').innerText(), label: await link.locator('span').innerText(), name });
  }
  return out;
}

/** How far the page, or a table on it, scrolls sideways (0 when everything fits). */
async function sideways(c: ConsolePage): Promise<string[]> {
  return c.page.evaluate(`(() => {
    const out = [];
    const over = (el, what) => {
      const d = el.scrollWidth - el.clientWidth;
      if (d > 1) out.push(what + ' is ' + d + ' px too wide');
    };
    over(document.documentElement, 'the page');
    over(document.querySelector('main'), 'the content column');
    document.querySelectorAll('main .table-wrap, main .table-bare').forEach((el, i) =>
      over(el, 'table ' + (i + 1) + ' (' + (el.querySelector('table')?.getAttribute('aria-label') ?? 'unnamed') + ')'),
    );
    return out;
  })()`);
}

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
    // A coding session of three requests, one of them a sub-agent's, for Sessions and its detail.
    for (const agent of [undefined, 'explorer', undefined])
      await client.chat.completions.create(
        { model: 'gpt-4o', messages: [{ role: 'user', content: 'refactor' }] },
        {
          headers: {
            'x-claude-code-session-id': 'refactor-run',
            ...(agent ? { 'x-claude-code-agent-id': agent } : {}),
          },
        },
      );
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
        const pages = await navPages(c);
        assert.ok(pages.length >= 11, `the navigation lists ${pages.length} pages`);
        const wide: string[] = [];
        for (const size of SIZES) {
          await c.page.setViewportSize(size);
          for (const p of pages) {
            await gotoPage(c.page, p.key, p.label);
            await c.settled();
            await screenshot(c.page, `${p.name}-${theme}-${size.width}`);
            if (size.width === 1440) assert.deepEqual(await axeViolations(c.page), [], `${p.name} (${theme})`);
            else wide.push(...(await sideways(c)).map((w) => `${p.name}: ${w}`));
          }
          await gotoPage(c.page, 's', 'Sessions');
          await c.page.getByRole('link', { name: 'refactor-run' }).click();
          await c.page.getByRole('heading', { level: 1, name: 'Session' }).waitFor();
          await c.settled();
          await screenshot(c.page, `session-detail-${theme}-${size.width}`);
          if (size.width === 1440) assert.deepEqual(await axeViolations(c.page), [], `session detail (${theme})`);
          else wide.push(...(await sideways(c)).map((w) => `session detail: ${w}`));
        }
        assert.deepEqual(wide, [], 'at 1280×720 no page scrolls sideways');
        await c.page.setViewportSize(SIZES[0]);
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
