/**
 * The usage log never loses a row: in real Chromium, rows made while the log is open, while the
 * console is on another page (through the SDKs and the Playground) and under a filter are all
 * there when the person comes back, without a reload.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { Browser, Page } from 'playwright-core';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { browserSkipReason, gotoPage, openConsole, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();

/** The request ids the log shows, top to bottom (every row is rendered: the log here is short). */
async function shownIds(page: Page): Promise<string[]> {
  return page
    .locator('.log-body')
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      rows.map((r) => r.getAttribute('data-request-id') ?? ''),
    );
}

describe('the usage log is always whole', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;
  let laptop = '';
  let ci = '';

  before(async () => {
    ({ gw, mock, browser } = await startConsoleWorld());
    laptop = await gw.admin.key('laptop');
    ci = await gw.admin.key('ci');
    await gw
      .openai(laptop)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'first' }] });
    c = await openConsole(browser, gw);
    page = c.page;
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  /** Waits until the log shows exactly the gateway's rows for the filter, in its order. */
  async function expectWhole(query: { key?: string } = {}): Promise<void> {
    const want = (await gw.admin.logs(query)).map((e) => e.requestId);
    await waitFor(async () => (await shownIds(page)).join() === want.join(), `the log shows all ${want.length} rows`);
  }

  test('rows made while the log is open arrive live', async () => {
    await gotoPage(page, '4', 'Usage log');
    await expectWhole();
    await gw.openai(ci).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'live' }] });
    await expectWhole();
  });

  test('rows made from the SDKs and the Playground while the log is closed are there on return', async () => {
    await gotoPage(page, '1', 'Overview');
    const openai = gw.openai(laptop);
    for (let i = 0; i < 3; i++)
      await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `away ${i}` }] });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: ci, maxRetries: 0 });
    await anthropic.messages.create({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'away' }] });
    await gotoPage(page, '8', 'Playground');
    await page.getByRole('button', { name: 'Make a Playground key' }).click();
    await page.getByText('secret is in this tab').waitFor();
    await page.getByLabel('Model').selectOption('gpt-4o');
    await page.getByLabel('Prompt').fill('from the playground');
    await page.getByLabel('Prompt').press('Control+Enter');
    await page.getByTestId('playground-row').waitFor();
    const [sent] = await gw.admin.logs({ limit: 1 });
    await page.getByRole('link', { name: 'In the usage log →' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage log' }).waitFor();
    // The link opens the log searched to that request: its row alone.
    await waitFor(async () => (await shownIds(page)).join() === sent!.requestId, 'the log searched to the request');
    assert.ok(page.url().includes(`request=${sent!.requestId}`), page.url());
    await page.goto(`${gw.url}/#/logs`);
    await expectWhole();
    assert.equal((await gw.admin.logs()).length, 7);
  });

  test('a filtered view left and come back to holds the rows it matches, and only those', async () => {
    await page.getByLabel('Filter by key').selectOption('laptop');
    await expectWhole({ key: 'laptop' });
    await gotoPage(page, '3', 'Keys');
    await gw.openai(laptop).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'mine' }] });
    await gw.openai(ci).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'theirs' }] });
    await gotoPage(page, '4', 'Usage log');
    await page.getByLabel('Filter by key').selectOption('laptop');
    await expectWhole({ key: 'laptop' });
    assert.deepEqual(c.problems, []);
  });
});
