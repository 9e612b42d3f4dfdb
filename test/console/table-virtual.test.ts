/**
 * The data table past 200 rows, in real Chromium: a catalogue of some 270 models (the presets and
 * 230 added through the admin API, as an imported price file would) renders only the rows in view,
 * sorts every row and not the rendered window (the dearest model first at the top, the cheapest
 * last at the bottom, and the other way round), and both the keyboard (the scroll box takes the
 * focus; End and Home) and the mouse wheel reach the last row. The keys list does the same past 200 keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ModelView } from '../../gateway/contract/admin/index.js';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { axeViolations, browserSkipReason, gotoPage, openConsole, screenshot, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();
const ADDED = 230;

/** The ids of the model rows rendered now, top to bottom. */
async function renderedIds(page: Page): Promise<string[]> {
  return page
    .locator('tr[data-model]')
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      rows.map((r) => r.getAttribute('data-model') ?? ''),
    );
}

/** Whether the row of `id` is rendered and inside the scroll box's visible part. */
async function inView(page: Page, id: string): Promise<boolean> {
  const row = page.locator(`tr[data-model="${id}"]`);
  if ((await row.count()) === 0) return false;
  const box = await row.boundingBox();
  const frame = await page.locator('.models-table').locator('xpath=..').boundingBox();
  return box !== null && frame !== null && box.y >= frame.y - 1 && box.y + box.height <= frame.y + frame.height + 1;
}

describe('the data table past 200 rows (virtual mode)', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;
  let models: ModelView[];
  const output = (id: string): number => models.find((m) => m.id === id)!.prices.output;

  before(async () => {
    ({ gw, mock, browser } = await startConsoleWorld());
    // Output prices in a scrambled order (7 is prime to 230), so the id order is not the price order.
    for (let i = 0; i < ADDED; i++)
      await gw.admin.call('addModel', {
        body: {
          id: `bulk-${String(i).padStart(3, '0')}`,
          prices: { input: 1_000_000, output: 1_000_000 + ((i * 7) % ADDED) * 10_000 },
        },
      });
    models = (await gw.admin.call('listModels')).models;
    assert.ok(models.length > 200 + ADDED / 10, `${models.length} models`);
    c = await openConsole(browser, gw);
    page = c.page;
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('only the rows in view render, inside a focusable scroll box, and axe finds nothing', async () => {
    await gotoPage(page, '5', 'Models');
    await page.locator('tr[data-model]').first().waitFor();
    const shown = await renderedIds(page);
    assert.ok(shown.length > 5, `${shown.length} rows rendered`);
    assert.ok(shown.length < models.length / 2, `${shown.length} of ${models.length} rendered: not virtual`);
    assert.ok((await page.locator('tr.spacer').count()) >= 1, 'a spacer row stands for the rows not rendered');
    const box = page.getByRole('region', { name: 'Model catalogue, scrollable' });
    assert.equal(await box.getAttribute('tabindex'), '0');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'table-virtual-1440');
  });

  test('sorting sorts every row: the dearest at the top, and End on the keyboard reaches the cheapest', async () => {
    const byOutput = [...models].sort((a, b) => b.prices.output - a.prices.output);
    const dearest = byOutput[0]!.prices.output;
    const cheapest = byOutput.at(-1)!.prices.output;
    const header = page.getByRole('columnheader', { name: 'Output' });
    await header.getByRole('button').click();
    await waitFor(async () => (await header.getAttribute('aria-sort')) === 'descending', 'sorted dearest first');
    let window = (await renderedIds(page)).map(output);
    assert.equal(window[0], dearest, 'the first row is the dearest of all rows, not of the window');
    assert.deepEqual(
      window,
      [...window].sort((a, b) => b - a),
      'the window is in order',
    );

    const box = page.getByRole('region', { name: 'Model catalogue, scrollable' });
    await box.focus();
    await page.keyboard.press('End');
    await waitFor(async () => {
      const ids = await renderedIds(page);
      return ids.length > 0 && output(ids.at(-1)!) === cheapest && inView(page, ids.at(-1)!);
    }, 'End brings the cheapest row into view');
    window = (await renderedIds(page)).map(output);
    assert.deepEqual(
      window,
      [...window].sort((a, b) => b - a),
      'the window at the end is in order',
    );
    assert.ok(window[0]! < dearest, 'the window moved: the top rows are no longer rendered');
    // The box is scrolled to its end: the row at the bottom is the table's last.
    const atEnd = await box.evaluate(
      (el: { scrollTop: number; clientHeight: number; scrollHeight: number }) =>
        el.scrollTop + el.clientHeight >= el.scrollHeight - 1,
    );
    assert.equal(atEnd, true, 'End scrolls the box to its end');
    await screenshot(page, 'table-virtual-end');

    await page.keyboard.press('Home');
    await waitFor(async () => output((await renderedIds(page))[0]!) === dearest, 'Home goes back to the top');
  });

  test('sorted the other way, the mouse wheel reaches the dearest row at the bottom', async () => {
    const header = page.getByRole('columnheader', { name: 'Output' });
    await header.getByRole('button').click();
    await waitFor(async () => (await header.getAttribute('aria-sort')) === 'ascending', 'sorted cheapest first');
    const outputs = models.map((m) => m.prices.output);
    const cheapest = Math.min(...outputs);
    const dearest = Math.max(...outputs);
    assert.equal(output((await renderedIds(page))[0]!), cheapest);
    const frame = await page.getByRole('region', { name: 'Model catalogue, scrollable' }).boundingBox();
    assert.ok(frame);
    await page.mouse.move(frame.x + frame.width / 2, frame.y + frame.height / 2);
    await waitFor(async () => {
      await page.mouse.wheel(0, 4000);
      const ids = await renderedIds(page);
      return ids.length > 0 && output(ids.at(-1)!) === dearest && inView(page, ids.at(-1)!);
    }, 'the wheel reaches the dearest row');
    const window = (await renderedIds(page)).map(output);
    assert.deepEqual(
      window,
      [...window].sort((a, b) => a - b),
      'the window at the bottom is in order',
    );
    // A filter that leaves fewer than 200 rows renders them all, without the scroll box.
    await page.getByRole('searchbox', { name: 'Search' }).fill('bulk-00');
    await waitFor(async () => (await renderedIds(page)).length === 10, 'the ten matches');
    assert.equal(await page.getByRole('region', { name: 'Model catalogue, scrollable' }).count(), 0);
    assert.deepEqual(c.problems, []);
  });

  test('the keys list goes virtual too: 220 keys, only those in view render, End reaches the last by name', async () => {
    for (let i = 0; i < 220; i++)
      await gw.admin.call('createKey', { body: { name: `agent-${String(i).padStart(3, '0')}` } });
    const names = (await gw.admin.call('listKeys')).keys.map((k) => k.name).sort((a, b) => a.localeCompare(b));
    await page.getByRole('searchbox', { name: 'Search' }).blur(); // the shortcut is not typed into the search
    await gotoPage(page, '3', 'Keys');
    const rows = page.locator('tr[data-key]');
    await rows.first().waitFor();
    const shown = await rows.count();
    assert.ok(shown > 5 && shown < names.length / 2, `${shown} of ${names.length} keys rendered: not virtual`);
    const header = page.getByRole('columnheader', { name: 'Name' });
    await header.getByRole('button').click();
    await waitFor(async () => (await header.getAttribute('aria-sort')) === 'ascending', 'sorted by name');
    const box = page.getByRole('region', { name: 'Keys, scrollable' });
    await box.focus();
    await page.keyboard.press('End');
    await waitFor(
      async () => (await rows.last().getAttribute('data-key')) === names.at(-1),
      'End brings the last key by name into view',
    );
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(c.problems, []);
  });
});
