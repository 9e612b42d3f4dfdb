/**
 * Keys worth managing, in real Chromium: each key's last use and its spend over 30 days with a
 * sparkline (from GET /api/keys/usage, following new requests live), its name linking to its rows
 * in the usage log, a badge for keys Connect made, a spent quota shown as blocked; and the
 * Playground sending with one key of its own, reused across reloads instead of a key per visit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { usd, usdExact } from '../../gateway/contract/money.js';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { axeViolations, browserSkipReason, gotoPage, openConsole, screenshot, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();

describe('keys worth managing', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;
  let laptop: string;

  const ask = (secret: string, content = 'hello') =>
    gw.openai(secret).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
  const row = (name: string) => page.locator(`tr[data-key="${name}"]`);

  before(async () => {
    ({ gw, mock, browser } = await startConsoleWorld());
    laptop = await gw.admin.key('laptop');
    await gw.admin.key('idle');
    const capped = await gw.admin.key('capped');
    await ask(laptop);
    await ask(capped);
    // A quota lowered below what the key spent: it is blocked from now on.
    const spent = (await gw.admin.call('listKeys')).keys.find((k) => k.name === 'capped')!.usedMicro;
    assert.ok(spent > 0);
    await gw.admin.call('updateKey', { params: { name: 'capped' }, body: { quotaMicro: spent - 1 } });
    await assert.rejects(ask(capped), (e: { status: number }) => e.status === 402);
    await gw.admin.call('connectTool', { params: { tool: 'claude-code' }, body: {} });
    c = await openConsole(browser, gw);
    page = c.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('last used, 30 days of spend with a sparkline, a Connect badge, a blocked quota', async () => {
    await gotoPage(page, '3', 'Keys');
    const usage = new Map((await gw.admin.call('getKeyUsage', { query: {} })).keys.map((k) => [k.name, k]));
    const spend = (name: string) => row(name).getByTestId('key-spend').locator('.money');
    await spend('laptop').waitFor();
    assert.match((await row('laptop').getByTestId('key-last-used').textContent()) ?? '', /just now|s ago/);
    assert.equal(await row('idle').getByTestId('key-last-used').textContent(), 'never');
    assert.equal(await spend('laptop').textContent(), usd(usage.get('laptop')!.costMicro));
    assert.equal(await spend('laptop').getAttribute('title'), usdExact(usage.get('laptop')!.costMicro));
    assert.equal(await row('laptop').locator('.sparkline-bar').count(), 1, 'one day with spend, one bar');
    assert.equal(
      await row('laptop').getByRole('img').getAttribute('aria-label'),
      `${usd(usage.get('laptop')!.costMicro)} over the last 30 days`,
    );
    assert.equal(await row('idle').locator('.sparkline-bar').count(), 0);
    assert.equal(await row('claude-code').getByTestId('key-made-by').textContent(), 'Claude Code');
    assert.equal(await row('laptop').getByTestId('key-made-by').count(), 0);
    assert.equal(await row('capped').getByTestId('key-blocked').textContent(), 'blocked: quota spent');
    assert.equal(await row('laptop').getByTestId('key-blocked').count(), 0);
    assert.deepEqual(await axeViolations(page), []);
  });

  test('the table sorts by spend and by last use; figures still on their way are skeletons, not "never" or $0.00', async () => {
    const names = () =>
      page
        .locator('tr[data-key]')
        .evaluateAll((rows: { getAttribute(n: string): string | null }[]) =>
          rows.map((r) => r.getAttribute('data-key')),
        );
    const usage = (await gw.admin.call('getKeyUsage', { query: {} })).keys;
    await page.getByRole('button', { name: /Spend, 30 days/ }).click();
    const bySpend = [...usage].sort((a, b) => b.costMicro - a.costMicro).map((k) => k.name);
    await waitFor(async () => (await names()).join() === bySpend.join(), `sorted by spend: ${bySpend.join()}`);
    assert.equal(
      await page.getByRole('columnheader', { name: /Spend, 30 days/ }).getAttribute('aria-sort'),
      'descending',
    );
    await page.getByRole('button', { name: /Last used/ }).click();
    const newest = [...usage].sort((a, b) => (b.lastUsedAt ?? -1) - (a.lastUsedAt ?? -1))[0]!.name;
    await waitFor(async () => (await names())[0] === newest, `the most recently used first: ${newest}`);

    // Hold the usage figures back: the rows show, their two cells are grey bars until the figures come.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/keys/usage**', async (route) => {
      await held;
      await route.continue();
    });
    await page.reload();
    await row('idle').waitFor();
    assert.equal(await row('idle').locator('.skeleton').count(), 2);
    assert.equal(await row('idle').getByTestId('key-last-used').count(), 0, 'no "never" before the figures');
    assert.equal(await row('idle').getByTestId('key-spend').count(), 0, 'no $0.00 before the figures');
    release();
    await row('idle').getByTestId('key-last-used').waitFor();
    assert.equal(await row('idle').getByTestId('key-last-used').textContent(), 'never');
    await page.unroute('**/api/keys/usage**');
  });

  test('a request made while the page is open moves its key’s last use and spend', async () => {
    const spend = row('laptop').getByTestId('key-spend').locator('.money');
    const before = await spend.getAttribute('title');
    await ask(laptop, 'while the page is open');
    const want = (await gw.admin.call('getKeyUsage', { query: {} })).keys.find((k) => k.name === 'laptop')!;
    // The exact amount is on hover (the cell shows cents).
    await waitFor(
      async () => (await spend.getAttribute('title')) === usdExact(want.costMicro),
      `the spend follows (was ${before}, now ${usdExact(want.costMicro)})`,
    );
    assert.notEqual(before, usdExact(want.costMicro));
  });

  test("a key's name opens the usage log filtered to its rows", async () => {
    await row('laptop').getByRole('link', { name: 'laptop' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage log' }).waitFor();
    assert.ok(page.url().includes('#/logs?key=laptop'), page.url());
    const want = (await gw.admin.logs({ key: 'laptop' })).map((r) => r.requestId);
    await waitFor(
      async () =>
        (
          await page
            .locator('.log-body')
            .evaluateAll((rows: { getAttribute(n: string): string | null }[]) =>
              rows.map((r) => r.getAttribute('data-request-id')),
            )
        ).join() === want.join(),
      "only laptop's rows",
    );
    assert.equal(await page.getByLabel('Filter by key').inputValue(), 'laptop');
  });

  test('the Playground makes one key of its own and reuses it after a reload', async () => {
    await gotoPage(page, '8', 'Playground');
    await page.getByRole('button', { name: 'Make a Playground key' }).click();
    await page.getByText('secret is in this tab').waitFor();
    const send = async (text: string): Promise<void> => {
      await page.getByLabel('Model').selectOption('gpt-4o');
      await page.getByLabel('Prompt').fill(text);
      await page.getByLabel('Prompt').press('Control+Enter');
      await page
        .getByTestId('reply')
        .filter({ hasText: `mock reply to: ${text}` })
        .waitFor();
      await page.getByTestId('playground-row').waitFor();
    };
    await send('first visit');
    // A reload loses the secret (tab memory only): the same key gets a new one, no new key is made.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    const own = (await gw.admin.call('listKeys')).keys.find((k) => k.madeBy === 'playground')!;
    await waitFor(async () => (await page.getByLabel('Key', { exact: true }).inputValue()) === own.name, 'preselected');
    await page.getByRole('button', { name: 'Use the Playground key' }).click();
    await page.getByText('secret is in this tab').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Use the Playground key' }).count(), 0);
    await send('second visit');
    const keys = (await gw.admin.call('listKeys')).keys;
    assert.deepEqual(
      keys.filter((k) => k.madeBy === 'playground' || k.name.startsWith('playground')).map((k) => k.name),
      ['playground'],
    );
    assert.equal(keys.find((k) => k.name === 'playground')!.id, own.id);
    assert.equal((await gw.admin.logs({ key: 'playground' })).length, 2);
    await page.goto(`${gw.url}/#/keys`);
    assert.equal(await row('playground').getByTestId('key-made-by').textContent(), 'Playground');
    assert.deepEqual(c.problems, []);
  });

  test('the key form says what is wrong at the field: its own check first, then the gateway refusing a taken name', async () => {
    await gotoPage(page, '3', 'Keys');
    await page.getByRole('button', { name: 'Create key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create a key' });
    await dialog.getByLabel('Name').fill('laptop');
    await dialog.getByLabel('Quota (USD)').fill('five');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const quota = dialog.getByLabel('Quota (USD)');
    await dialog.getByRole('alert').getByText('Enter a dollar amount such as 5 or 12.50').waitFor();
    assert.equal(await quota.getAttribute('aria-invalid'), 'true');
    assert.equal(await quota.getAttribute('aria-describedby'), 'key-quota-error');
    assert.equal(await dialog.getByRole('alert').count(), 1);
    // Fixed, the form is sent, and the gateway's refusal of the name lands at the name.
    await quota.fill('5');
    assert.equal(await dialog.getByRole('alert').count(), 0);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByRole('alert').getByText('A key named "laptop" already exists').waitFor();
    assert.equal(await dialog.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.equal(await dialog.getByRole('alert').count(), 1);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('Keys and Playground in both themes at 1440×900 and 1280×720: axe clean, no sideways scroll', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const t = await openConsole(browser, gw, { theme });
      for (const [width, height] of [
        [1440, 900],
        [1280, 720],
      ] as const) {
        await t.page.setViewportSize({ width, height });
        await t.page.goto(`${gw.url}/#/keys`);
        await t.page.locator('tr[data-key="laptop"] [data-testid="key-spend"] svg').waitFor();
        await screenshot(t.page, `keys-${theme}-${width}x${height}`);
        const { scroll, client } = await t.page
          .locator('.table-wrap')
          .evaluate((el: { scrollWidth: number; clientWidth: number }) => ({
            scroll: el.scrollWidth,
            client: el.clientWidth,
          }));
        assert.ok(scroll <= client, `${theme} ${width}: the keys table scrolls sideways (${scroll} > ${client})`);
        assert.deepEqual(await axeViolations(t.page), [], `keys ${theme} ${width}`);
        await t.page.goto(`${gw.url}/#/playground`);
        await t.page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
        await t.settled();
        assert.deepEqual(await axeViolations(t.page), [], `playground ${theme} ${width}`);
        await screenshot(t.page, `playground-${theme}-${width}x${height}`);
      }
      await t.close();
    }
  });
});
