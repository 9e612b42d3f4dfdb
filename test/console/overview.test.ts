/**
 * The Overview as analytics a person opens daily, in real Chromium against a gateway with a month of
 * usage: the range switch (24 h by the hour, 7 and 30 days, a custom span), a tooltip per bar with
 * each group's figure, a click on a bar opening the usage log filtered to that bucket (and that
 * group), the metric switch, groupings by tool, project and session, the top keys and models of the
 * range, and stat cards that link to their filter. Every figure is checked against the admin API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { spendText } from '../../renderer/pages/overview/metrics.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import {
  assertConsoleBuilt,
  axeViolations,
  browserSkipReason,
  launch,
  openConsole,
  screenshot,
  type ConsolePage,
} from './browser.js';
import { fillOverview, LIVE } from './overview-data.js';

const skip = browserSkipReason();
const HOUR = 3_600_000;

/** The window the console computes for 7 days: local midnight six days ago to tomorrow's. */
function lastDays(n: number): { since: number; until: number } {
  const d = new Date();
  return {
    since: new Date(d.getFullYear(), d.getMonth(), d.getDate() - (n - 1)).getTime(),
    until: new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime(),
  };
}

function hashParams(page: Page): URLSearchParams {
  const hash = new URL(page.url()).hash;
  return new URLSearchParams(hash.slice(hash.indexOf('?') + 1));
}

/** The log's rows on screen, by request id. */
async function logIds(page: Page): Promise<string[]> {
  await page.locator('.log-body').first().waitFor();
  return page
    .locator('.log-body')
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      rows.map((r) => r.getAttribute('data-request-id') ?? ''),
    );
}

describe('the Overview', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway();
    browser = await launch();
    await fillOverview(gw, mock);
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

  const overview = async (query = ''): Promise<void> => {
    await page.goto(`${gw.url}/#/${query ? `?${query}` : ''}`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await c.settled();
  };

  test('the range switch reads 7 days by default, then 24 hours by the hour, 30 days and a custom span', async () => {
    await overview();
    const week = await gw.admin.call('getStatsTop', { query: { ...lastDays(7), by: 'model' } });
    const spend = page.getByRole('link', { name: /Spend, last 7 days/ });
    await spend.getByText(spendText(week.total.costMicro)).waitFor();
    assert.match((await spend.textContent()) ?? '', new RegExp(`${week.total.requests} requests`));
    await page.getByRole('heading', { name: /Spend per day, last 7 days/ }).waitFor();

    await page.getByRole('radio', { name: '24 h' }).click();
    await page.getByRole('heading', { name: /Spend per hour, last 24 hours/ }).waitFor();
    assert.equal(hashParams(page).get('range'), '24h');
    const first = Math.floor(Date.now() / HOUR) * HOUR - 23 * HOUR;
    const day = await gw.admin.call('getStatsTop', { query: { since: first, until: first + 24 * HOUR, by: 'key' } });
    await page
      .getByRole('link', { name: /Spend, last 24 hours/ })
      .getByText(spendText(day.total.costMicro))
      .waitFor();
    await page
      .getByRole('link', { name: /Spend, last 24 hours/ })
      .getByText(`${day.total.requests} requests`)
      .waitFor();

    await page.getByRole('radio', { name: '30 d' }).click();
    const month = await gw.admin.call('getStatsTop', { query: { ...lastDays(30), by: 'key' } });
    await page
      .getByRole('link', { name: /Spend, last 30 days/ })
      .getByText(`${month.total.requests} requests`)
      .waitFor();

    await page.getByRole('radio', { name: 'Custom' }).click();
    const from = page.getByLabel('From', { exact: true });
    const to = page.getByLabel('To', { exact: true });
    const d = new Date(Date.now() - 5 * 86_400_000);
    const day5 = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    await from.fill(day5);
    await to.fill(day5);
    // One day is drawn by the hour.
    await page.getByRole('heading', { name: new RegExp(`Spend per hour, ${day5}`) }).waitFor();
    const since = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
    const until = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
    const one = await gw.admin.call('getStatsTop', { query: { since, until, by: 'key' } });
    await page
      .getByRole('link', { name: new RegExp(`Spend, ${day5}`) })
      .getByText(`${one.total.requests} requests`)
      .waitFor();
    // A range that ends before it starts says so, at the fields.
    const earlier = new Date(d.getTime() - 2 * 86_400_000);
    await to.fill(
      `${earlier.getFullYear()}-${String(earlier.getMonth() + 1).padStart(2, '0')}-${String(earlier.getDate()).padStart(2, '0')}`,
    );
    await page.getByRole('alert').getByText('The range ends before it starts.').waitFor();
    // Nothing to show is a dash, not a skeleton that never resolves, and no top lists.
    await page
      .getByRole('link', { name: /^Spend/ })
      .getByText('—')
      .waitFor();
    assert.equal(await page.getByRole('table', { name: /Top keys/ }).count(), 0);
    assert.deepEqual(c.problems, []);
  });

  test('two dates set before the page renders again are both kept', async () => {
    await overview();
    await page.getByRole('radio', { name: 'Custom' }).click();
    await page.getByLabel('To', { exact: true }).waitFor();
    const d = new Date(Date.now() - 3 * 86_400_000);
    const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    // Both fields change in one task, so React cannot render between them (as a busy machine does
    // between a person's two entries): the second change must start from the first's query.
    await page.evaluate(`(() => {
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
      for (const label of ['From', 'To']) {
        const input = document.querySelector('input[aria-label="' + label + '"]');
        setValue.call(input, ${JSON.stringify(day)});
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
    })()`);
    await page.getByRole('heading', { name: new RegExp(`Spend per hour, ${day}`) }).waitFor();
    const q = hashParams(page);
    assert.deepEqual([q.get('range'), q.get('from'), q.get('to')], ['custom', day, day]);
  });

  test('a bar shows each group in a tooltip, and a click opens the log on that hour and that group', async () => {
    await overview('range=24h&by=key');
    const over = page.locator('.usage-chart .u-over');
    const box = (await over.boundingBox())!;
    // The current hour is the last of 24 bars; its lowest segment is the largest key (laptop).
    const x = box.x + box.width * (23.5 / 24);
    await page.mouse.move(x, box.y + box.height - 3);
    const tip = page.locator('.chart-tip');
    await tip.waitFor();
    const text = (await tip.textContent()) ?? '';
    assert.match(text, /laptop/);
    assert.match(text, /ci/);
    await page.screenshot({ path: `${process.cwd()}/test-artifacts/console/overview-tooltip.png` });
    await page.mouse.click(x, box.y + box.height - 3);
    await page.getByRole('heading', { level: 1, name: 'Usage log' }).waitFor();
    const q = hashParams(page);
    assert.equal(q.get('key'), 'laptop');
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    assert.equal(Number(q.get('since')), hour);
    assert.equal(Number(q.get('until')), hour + HOUR);
    const want = (await gw.admin.logs({ key: 'laptop', since: hour, until: hour + HOUR })).map((e) => e.requestId);
    assert.equal(want.length, LIVE.laptop);
    assert.deepEqual(await logIds(page), want);
    // The log names the span it was given, and one chip clears it with the key.
    const span = await page
      .getByLabel('Filter by time')
      .evaluate((s) => (s as unknown as { selectedOptions: { text: string }[] }).selectedOptions[0]?.text);
    const hh = String(new Date(hour).getHours()).padStart(2, '0');
    // The day's last hour ends on the next day, which the span then names (…23:00 – 2026-11-28 00:00).
    assert.match(span ?? '', new RegExp(`${hh}:00 – (\\d{4}-\\d\\d-\\d\\d )?\\d\\d:00$`));
    await screenshot(page, 'overview-bar-to-log');
    await page.getByRole('button', { name: /Clear filters/ }).click();
    await page.waitForURL((u) => !u.hash.includes('since='));
    assert.deepEqual(c.problems, []);
  });

  test('the metric switch charts requests, tokens, errors and the cache-hit rate', async () => {
    await overview('range=30d&by=model');
    const legend = page.locator('.chart-legend');
    const month = lastDays(30);
    await page.getByRole('radio', { name: 'Errors' }).click();
    await page.getByRole('heading', { name: /Errors per day/ }).waitFor();
    const byModel = await gw.admin.call('getStatsTop', { query: { ...month, by: 'model', limit: 50 } });
    for (const r of byModel.rows)
      await legend
        .getByText(`${r.errors.toLocaleString('en-US')} of ${r.requests.toLocaleString('en-US')}`)
        .first()
        .waitFor();
    await page.getByRole('radio', { name: 'Requests' }).click();
    await page.getByRole('heading', { name: /Requests per day/ }).waitFor();
    await page.getByRole('radio', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: /Tokens per day/ }).waitFor();
    await page.getByRole('radio', { name: 'Cache hits' }).click();
    await page.getByRole('heading', { name: /Cache hits per day/ }).waitFor();
    const t = byModel.total;
    const rate = t.cacheReadTokens / (t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens);
    await page
      .getByRole('link', { name: /Cache hits/ })
      .getByText(`${(rate * 100).toFixed(1)}%`)
      .waitFor();
    assert.equal(hashParams(page).get('metric'), 'cache');
    await screenshot(page, 'overview-cache-rate');
    assert.deepEqual(c.problems, []);
  });

  test('the chart groups by session, tool and project, and a legend entry opens its rows', async () => {
    await overview('range=30d');
    const by = page.getByLabel('Group the chart by');
    await by.selectOption('tool');
    await page.locator('.chart-legend').getByRole('link', { name: 'claude-code' }).waitFor();
    await page.locator('.chart-legend').getByRole('link', { name: 'openai-sdk' }).waitFor();
    await by.selectOption('project');
    await page.locator('.chart-legend').getByRole('link', { name: 'website' }).waitFor();
    await by.selectOption('session');
    const [top] = (await gw.admin.call('getStatsTop', { query: { ...lastDays(30), by: 'session', limit: 1 } })).rows;
    await page.locator('.chart-legend').getByRole('link', { name: top!.group! }).waitFor();
    await screenshot(page, 'overview-by-session');
    // Today's session, in the last 24 hours.
    await page.getByRole('radio', { name: '24 h' }).click();
    await page.locator('.chart-legend').getByRole('link', { name: 'sess-refactor' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage log' }).waitFor();
    assert.equal(hashParams(page).get('session'), 'sess-refactor');
    const want = (await gw.admin.logs({ session: 'sess-refactor' })).map((e) => e.requestId);
    assert.deepEqual(await logIds(page), want);
    assert.deepEqual(c.problems, []);
  });

  test('top keys and models list the range by spend and open their rows; the error card opens the failures', async () => {
    await overview('range=7d');
    const week = lastDays(7);
    const keys = await gw.admin.call('getStatsTop', { query: { ...week, by: 'key' } });
    const table = page.getByRole('table', { name: /Top keys by spend/ });
    await table.getByRole('link', { name: keys.rows[0]!.group! }).waitFor();
    const shown = await table.locator('tbody tr').allTextContents();
    assert.equal(shown.length, keys.rows.length);
    keys.rows.forEach((r, i) =>
      assert.match(shown[i]!, new RegExp(`^${r.group}.*${spendText(r.costMicro).replace('$', '\\$')}`)),
    );
    const models = await gw.admin.call('getStatsTop', { query: { ...week, by: 'model' } });
    await page
      .getByRole('table', { name: /Top models by spend/ })
      .getByRole('link', { name: models.rows[0]!.group! })
      .waitFor();

    await table.getByRole('link', { name: 'ci' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage log' }).waitFor();
    assert.deepEqual(
      await logIds(page),
      (await gw.admin.logs({ key: 'ci', ...week })).map((e) => e.requestId),
    );

    await overview('range=7d');
    await page.getByRole('link', { name: /^Errors/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage log' }).waitFor();
    const q = hashParams(page);
    assert.deepEqual(
      [q.get('status'), Number(q.get('since')), Number(q.get('until'))],
      ['error', week.since, week.until],
    );
    const failed = await gw.admin.logs({ status: 'error', ...week });
    assert.ok(failed.length >= LIVE.failed);
    assert.deepEqual(
      await logIds(page),
      failed.map((e) => e.requestId),
    );
    assert.deepEqual(c.problems, []);
  });

  for (const theme of ['light', 'dark'] as const)
    test(`screenshots at 1440×900 and 1280×720 in the ${theme} theme, with no axe finding`, async () => {
      const t = await openConsole(browser, gw, { theme });
      try {
        for (const [width, height] of [
          [1440, 900],
          [1280, 720],
        ] as const) {
          await t.page.setViewportSize({ width, height });
          await t.page.goto(`${gw.url}/#/?range=30d`);
          await t.page
            .locator('.usage-chart canvas')
            .waitFor()
            .catch(async (err: unknown) => {
              // Seen once in a full run on a loaded machine and never alone: keep what the page showed.
              const shot = await screenshot(t.page, `overview-${width}-${theme}-no-chart`);
              const panel = await t.page.locator('section[aria-labelledby="usage-title"]').innerText();
              throw new Error(`no chart at ${t.page.url()} (${shot}); the panel said: ${panel}`, { cause: err });
            });
          await t.settled();
          await screenshot(t.page, `overview-${width}-${theme}`);
          await t.page.screenshot({
            path: `${process.cwd()}/test-artifacts/console/overview-${width}-${theme}-full.png`,
            fullPage: true,
          });
          assert.deepEqual(await axeViolations(t.page), [], `${width} ${theme}`);
        }
        assert.deepEqual(t.problems, []);
      } finally {
        await t.close();
      }
    });
});
