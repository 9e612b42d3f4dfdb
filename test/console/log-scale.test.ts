/**
 * The usage log at scale, in real Chromium: the filter's total count, tokens and cost come from the
 * gateway's SQL summary (not the rows loaded), failures say why in an error column, one request is
 * found by its id, the filter lives in the URL (a reload keeps it, one chip clears it), the grid
 * fits a 1280 px window with LATENCY in view, and the details drawer steps to the next and previous
 * rows. There is no "401" filter: refused keys write no row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { usd } from '../../gateway/contract/money.js';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { axeViolations, browserSkipReason, openConsole, screenshot, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();

async function shownIds(page: Page): Promise<string[]> {
  return page
    .locator('.log-body')
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      rows.map((r) => r.getAttribute('data-request-id') ?? ''),
    );
}

describe('the usage log at scale', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    ({ gw, mock, browser } = await startConsoleWorld());
    const laptop = await gw.admin.key('laptop');
    const ci = await gw.admin.key('ci');
    for (const [key, text] of [
      [laptop, 'one'],
      [ci, 'two'],
      [laptop, 'three'],
    ] as const)
      await gw.openai(key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: text }] });
    // A model no line serves: a logged failure with a reason.
    await assert.rejects(
      gw.openai(ci).chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    );
    // A wrong key: refused, no row, counted by the gateway since start.
    await assert.rejects(
      gw.openai('sk-wrong').chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    );
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

  test('the summary is the SQL total of the whole filter; failures show their error', async () => {
    const rows = await gw.admin.logs();
    assert.equal(rows.length, 4);
    const cost = rows.reduce((t, r) => t + r.costMicro, 0);
    assert.ok(cost > 0);
    await page.goto(`${gw.url}/#/logs`);
    const summary = page.getByTestId('log-summary');
    await waitFor(async () => (await summary.textContent())?.includes('4 requests') ?? false, 'the summary counts 4');
    const text = (await summary.textContent()) ?? '';
    assert.match(text, /1 failed/);
    assert.match(text, /1 refused for a bad key \(not logged\)/);
    assert.equal(await page.getByTestId('log-summary-cost').textContent(), usd(cost));
    const failed = rows.find((r) => r.status >= 400)!;
    const errorCell = page.locator(`[data-request-id="${failed.requestId}"] .log-error`);
    assert.ok(((await errorCell.textContent()) ?? '').length > 5, 'the failed row says why');
    const options = await page.getByLabel('Filter by status').locator('option').allTextContents();
    assert.ok(!options.some((o) => o.includes('401')), `no 401 filter: ${options.join(', ')}`);
  });

  test('at 1280 px the grid does not scroll sideways and LATENCY is in view', async () => {
    const grid = page.getByRole('grid', { name: 'Usage log' });
    const { scroll, client } = await grid.evaluate((el: { scrollWidth: number; clientWidth: number }) => ({
      scroll: el.scrollWidth,
      client: el.clientWidth,
    }));
    assert.ok(scroll <= client, `the log scrolls sideways: ${scroll} > ${client}`);
    const box = await page.getByRole('columnheader', { name: 'Latency' }).boundingBox();
    const gridBox = await grid.boundingBox();
    assert.ok(box && gridBox && box.x + box.width <= gridBox.x + gridBox.width, 'LATENCY is cut off');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'log-scale-1280');
  });

  test('filters live in the URL: a reload keeps them, the chip clears them', async () => {
    await page.getByLabel('Filter by key').selectOption('laptop');
    await page.getByLabel('Filter by status').selectOption('ok');
    await waitFor(
      async () => page.url().includes('key=laptop') && page.url().includes('status=ok'),
      'filters in the URL',
    );
    const want = (await gw.admin.logs({ key: 'laptop', status: 'ok' })).map((r) => r.requestId);
    await waitFor(async () => (await shownIds(page)).join() === want.join(), 'the filtered rows');
    await page.reload();
    await waitFor(async () => (await shownIds(page)).join() === want.join(), 'the filter survives a reload');
    assert.equal(await page.getByLabel('Filter by key').inputValue(), 'laptop');
    await waitFor(
      async () => (await page.getByTestId('log-summary').textContent())?.includes('2 requests') ?? false,
      'the summary follows the filter',
    );
    await page.getByRole('button', { name: /Clear filters \(2\)/ }).click();
    await waitFor(async () => (await shownIds(page)).length === 4, 'every row again');
    assert.ok(!page.url().includes('key='), page.url());
    assert.equal(await page.getByRole('button', { name: /Clear filters/ }).count(), 0);
  });

  test('one request is found by its id, as the Playground links to it', async () => {
    const target = (await gw.admin.logs())[2]!;
    await page.goto(`${gw.url}/#/logs?request=${target.requestId}`);
    await waitFor(async () => (await shownIds(page)).join() === target.requestId, 'only that request');
    assert.equal(await page.getByLabel('Search by request id').inputValue(), target.requestId);
    await page.getByRole('button', { name: /Clear filters/ }).click();
    await page.getByLabel('Search by request id').fill(target.requestId);
    await waitFor(async () => page.url().includes(`request=${target.requestId}`), 'typed id in the URL');
    await waitFor(async () => (await shownIds(page)).join() === target.requestId, 'typed search finds it');
    await page.getByRole('button', { name: /Clear filters/ }).click();
    await waitFor(async () => (await page.getByLabel('Search by request id').inputValue()) === '', 'field cleared');
  });

  test('the details drawer steps to the older and newer rows', async () => {
    const rows = await gw.admin.logs();
    await waitFor(async () => (await shownIds(page)).length === 4, 'all rows');
    await page.locator(`[data-request-id="${rows[0]!.requestId}"]`).click();
    const sheet = page.getByRole('dialog');
    const title = sheet.locator('.dialog-title');
    await waitFor(async () => (await title.textContent())?.includes(`#${rows[0]!.id}`) ?? false, 'first row open');
    assert.equal(await sheet.getByRole('button', { name: '← Newer' }).isDisabled(), true);
    await sheet.getByRole('button', { name: 'Older →' }).click();
    await waitFor(async () => (await title.textContent())?.includes(`#${rows[1]!.id}`) ?? false, 'second row');
    await sheet.getByRole('button', { name: 'Older →' }).click();
    await sheet.getByRole('button', { name: 'Older →' }).click();
    await waitFor(async () => (await title.textContent())?.includes(`#${rows[3]!.id}`) ?? false, 'last row');
    assert.equal(await sheet.getByRole('button', { name: 'Older →' }).isDisabled(), true);
    await sheet.getByRole('button', { name: '← Newer' }).click();
    await waitFor(async () => (await title.textContent())?.includes(`#${rows[2]!.id}`) ?? false, 'back one');
    await page.keyboard.press('Escape');
    assert.deepEqual(c.problems, []);
  });

  test('Time sorts both ways in the server order (in the URL), the other columns do not sort', async () => {
    await page.goto(`${gw.url}/#/logs`);
    const newest = (await gw.admin.logs()).map((r) => r.requestId);
    await waitFor(async () => (await shownIds(page)).join() === newest.join(), 'newest first');
    const time = page.getByRole('columnheader', { name: 'Time' });
    assert.equal(await time.getAttribute('aria-sort'), 'descending');
    for (const other of ['Key', 'Model', 'Cost', 'Latency']) {
      const header = page.getByRole('columnheader', { name: other, exact: true });
      assert.equal(await header.getAttribute('aria-sort'), null, `${other} claims a sort`);
      assert.equal(await header.getByRole('button').count(), 0, `${other} offers a sort it cannot keep`);
    }
    await time.getByRole('button').click();
    await waitFor(async () => page.url().includes('order=oldest'), 'the order in the URL');
    const oldest = [...newest].reverse();
    await waitFor(async () => (await shownIds(page)).join() === oldest.join(), 'oldest first, from the server');
    assert.equal(await time.getAttribute('aria-sort'), 'ascending');
    await screenshot(page, 'log-oldest-first-1280');
    // A request made now lands at the end of an oldest-first log that holds its end.
    const laptop = await gw.admin.key('laptop-late');
    await gw.openai(laptop).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'late' }] });
    const [late] = await gw.admin.logs({ key: 'laptop-late' });
    await waitFor(async () => (await shownIds(page)).at(-1) === late!.requestId, 'the new row at the end');
    // Oldest first, Newer is the next row down.
    await page.locator(`[data-request-id="${oldest[0]}"]`).click();
    const sheet = page.getByRole('dialog');
    assert.equal(await sheet.getByRole('button', { name: 'Older →' }).isDisabled(), true);
    const secondOldest = (await gw.admin.logs()).at(-2)!;
    await sheet.getByRole('button', { name: '← Newer' }).click();
    await waitFor(
      async () => (await sheet.locator('.dialog-title').textContent())?.includes(`#${secondOldest.id}`) ?? false,
      'the next newer row',
    );
    await page.keyboard.press('Escape');
    // A reload keeps the order; the header turns it back.
    await page.reload();
    await waitFor(async () => (await shownIds(page)).at(-1) === late!.requestId, 'still oldest first');
    await page.getByRole('columnheader', { name: 'Time' }).getByRole('button').click();
    await waitFor(async () => (await shownIds(page))[0] === late!.requestId, 'newest first again');
    assert.ok(!page.url().includes('order='), page.url());
  });

  test('both themes at 1440×900 and 1280×720: no sideways scroll, axe clean', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const t = await openConsole(browser, gw, { theme });
      for (const [width, height] of [
        [1440, 900],
        [1280, 720],
      ] as const) {
        await t.page.setViewportSize({ width, height });
        await t.page.goto(`${gw.url}/#/logs?status=error`);
        await t.page.getByTestId('log-summary').waitFor();
        const grid = t.page.getByRole('grid', { name: 'Usage log' });
        const wide = await grid.evaluate(
          (el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth > el.clientWidth,
        );
        assert.equal(wide, false, `${theme} ${width}: the log scrolls sideways`);
        assert.deepEqual(await axeViolations(t.page), [], `${theme} ${width}`);
        await screenshot(t.page, `log-scale-${theme}-${width}x${height}`);
      }
      await t.close();
    }
  });
});
