/**
 * Line health that tells the truth, in real Chromium: a line no request or test has touched is
 * "untested", a failed test marks it, a breaker at rest says after how many failures and when it
 * retries, with the last error, and each row shows its models and the last day's success rate,
 * median latency and request count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertConsoleBuilt, browserSkipReason, gotoPage, launch, openConsole, type ConsolePage } from './browser.js';

const skip = browserSkipReason();

describe('line health on the Lines page', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway();
    await gw.admin.topup(5);
    await gw.admin.line({ name: 'up', baseUrl: `${mock.url}/v1`, models: ['gpt-4o', 'gpt-4o-mini'] });
    await gw.admin.line({ name: 'down', baseUrl: `${mock.url}/s/status=500/v1`, models: ['gpt-4.1-mini'] });
    browser = await launch();
    c = await openConsole(browser, gw);
    page = c.page;
    await gotoPage(page, '6', 'Lines');
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('untested until a request, with the models on the row', async () => {
    const up = page.locator('tr[data-line="up"]');
    await up.getByTestId('line-health').getByText('untested').waitFor();
    await up.getByText('gpt-4o-mini').waitFor();
    const openai = gw.openai(await gw.admin.key('k'));
    for (let i = 0; i < 3; i++)
      await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${i}` }] });
    await up.getByTestId('line-health').getByText('healthy').waitFor();
    await up.getByTestId('line-day').getByText('100% ok').waitFor();
    // The figures may show the first request before the page reads the last two.
    const day = async (): Promise<string> => (await up.getByTestId('line-day').textContent()) ?? '';
    await waitFor(async () => /p50 .* · 3 req/.test(await day()), 'the line to count three requests', 10_000);
    assert.match(await day(), /^100% ok · p50 .* · 3 req$/);
  });

  test('a failed test marks the line', async () => {
    const down = page.locator('tr[data-line="down"]');
    await down.getByRole('button', { name: 'Test' }).click();
    await down.getByTestId('line-health').getByText('test failed').waitFor();
    // The gateway keeps the result: a reload (or another window) still shows it.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Lines' }).waitFor();
    await down.getByTestId('line-health').getByText('test failed').waitFor();
  });

  test('a resting breaker says after how many failures, when it retries, and the last error', async () => {
    const openai = gw.openai(await gw.admin.key('k2'));
    for (let i = 0; i < 3; i++)
      await openai.chat.completions
        .create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'fails' }] })
        .catch(() => undefined);
    const down = page.locator('tr[data-line="down"]');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Lines' }).waitFor();
    const health = down.getByTestId('line-health');
    await health.getByText(/resting after 3 failures, retrying in \d+ s/).waitFor();
    await health.locator('.line-error').waitFor();
    await down.getByTestId('line-day').getByText('0.0% ok').waitFor();
    assert.deepEqual(c.problems, []);
  });
});
