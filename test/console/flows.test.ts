/**
 * What a new user does in the console, in real Chromium against a real gateway and the mock
 * upstream: log in, top up, add lines, create and copy a key, use it through the openai SDK and
 * watch the request arrive with its cost, turn the key off and see 401, try the playground.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { spendText } from '../../renderer/pages/overview/metrics.js';
import { usdCost } from '../../gateway/contract/money.js';
import { USAGE_BUCKETS, type BucketKey } from '../../gateway/contract/usage-buckets.js';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertConsoleBuilt, browserSkipReason, gotoPage, launch, openConsole, type ConsolePage } from './browser.js';

const skip = browserSkipReason();
/** Everything the page keeps in web storage, as one string. */
const STORAGE = 'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })';

describe('console flows', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;
  let secret = '';

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway();
    browser = await launch();
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('without a session the console asks for a login link; the link logs in once and leaves no trace', async () => {
    c = await openConsole(browser, gw, { login: false });
    page = c.page;
    await page.goto(`${gw.url}/`);
    await page.getByRole('heading', { name: 'Log in to the console' }).waitFor();
    const loginUrl = gw.running.loginUrl();
    await page.goto(loginUrl);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    assert.equal(new URL(page.url()).search, '', 'the code is gone from the address bar');
    assert.equal(await page.evaluate<string>('document.cookie'), '', 'the session cookie is HttpOnly');
    const stored = await page.evaluate<string>(STORAGE);
    assert.doesNotMatch(stored, /tga_|sk-|tollgate_session/);
    assert.ok(!(await page.evaluate<string>('location.href')).includes('code='), 'no login code in the address bar');
    // The first-run checklist shows the four steps on an empty data dir.
    await page.locator('.step').first().waitFor();
    const steps = await page.locator('.step strong').allTextContents();
    assert.deepEqual(steps, ['Top up the wallet', 'Add a line', 'Create a key', 'Connect a tool']);
    // A used code does not log in a second browser.
    const other = await openConsole(browser, gw, { login: false });
    try {
      await other.page.goto(loginUrl);
      await other.page.getByText('already used or has expired').waitFor();
    } finally {
      await other.close();
    }
  });

  test('top up the wallet', async () => {
    await gotoPage(page, '2', 'Wallet');
    await page.getByLabel('Amount (USD)').fill('12.5');
    await page.getByLabel('Note').fill('first top-up');
    await page.getByRole('button', { name: 'Add funds' }).click();
    await page.getByTestId('balance').filter({ hasText: '$12.50' }).waitFor();
    assert.equal((await gw.admin.wallet()).balanceMicro, 12_500_000);
    await page.getByRole('cell', { name: 'first top-up' }).waitFor();
  });

  test('add a line from a preset (key to the keychain, write-only) and a custom line to the mock upstream', async () => {
    await gotoPage(page, '6', 'Lines');
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Add a line' });
    await dialog.getByLabel('Provider').selectOption('openrouter');
    await dialog.getByLabel('API key').fill('sk-or-console-test-credential');
    await dialog.getByRole('button', { name: 'Add line' }).click();
    await page.locator('tr[data-line="openrouter"]').waitFor();
    const { lines } = await gw.admin.client.call('listLines');
    const openrouter = lines.find((l) => l.name === 'openrouter')!;
    assert.equal(openrouter.apiKeySource, 'keychain');
    assert.ok(openrouter.models.length > 1, 'every preset model by default');
    assert.equal(await page.getByText('sk-or-console-test-credential').count(), 0, 'the credential is never shown');

    await page.keyboard.press('n');
    await dialog.getByLabel('Provider').selectOption('');
    await dialog.getByLabel('Name').fill('local');
    await dialog.getByLabel('Base URL').fill(`${mock.url}/v1`);
    await dialog.getByLabel('Models').fill('gpt-4o=mock-small');
    await dialog.getByText('No key (local server)').click();
    await dialog.getByText('Advanced').click();
    await dialog.getByLabel('Priority').fill('5');
    await dialog.getByRole('button', { name: 'Add line' }).click();
    const row = page.locator('tr[data-line="local"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Test' }).click();
    await row.getByText(/^ok · /).waitFor();
  });

  test('create a key: the secret is shown once and copied to the clipboard', async () => {
    await gotoPage(page, '3', 'Keys');
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Create a key' });
    await dialog.getByLabel('Name').fill('laptop');
    await dialog.getByLabel('Quota (USD)').fill('5');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-secret');
    secret = (await shown.textContent())!.trim();
    assert.match(secret, /^sk-[A-Za-z0-9]{48}$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copy secret' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.locator('tr[data-key="laptop"]').waitFor();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone once the dialog closes');
  });

  test("edit a key's quota and limit from its menu", async () => {
    await page.getByRole('button', { name: 'Actions for key laptop' }).click();
    await page.getByRole('menuitem', { name: 'Edit…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit key "laptop"' });
    await dialog.getByLabel('Quota (USD)').fill('7');
    await dialog.getByLabel('Requests per minute').fill('120');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-key="laptop"]').getByText('/ $7.00').waitFor();
    const [key] = (await gw.admin.client.call('listKeys')).keys;
    assert.deepEqual([key!.quotaMicro, key!.rpm], [7_000_000, 120]);
  });

  test('a request made with the copied key appears in the usage log with its cost and charge', async () => {
    await gotoPage(page, '4', 'Usage log');
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello from the console test' }],
    });
    assert.match(reply.choices[0]!.message.content ?? '', /mock reply/);
    const [entry] = await gw.admin.logs({ key: 'laptop' });
    assert.ok(entry && entry.costMicro > 0, 'the request was logged with a cost');
    const row = page.locator(`[data-request-id="${entry.requestId}"]`);
    await row.waitFor({ timeout: 10_000 });
    const cost = `$${(entry.costMicro / 1e6).toFixed(6).replace(/0+$/, '')}`;
    assert.equal((await row.getByTestId('row-cost').textContent())?.trim(), cost);
    await row.click();
    const details = page.getByRole('dialog');
    assert.equal((await details.getByTestId('detail-cost').textContent())?.trim(), cost);
    // The charge worked out at the prices the row was billed at (tokens × price × multiplier = cost).
    assert.ok(entry.breakdown, 'the row keeps its prices');
    assert.equal((await details.getByTestId('detail-formula').textContent())?.trim(), entry.breakdown.formula);
    // Each term is labelled as the usage-bucket table names its bucket.
    for (const t of entry.breakdown.terms)
      await details.getByRole('rowheader', { name: USAGE_BUCKETS[t.usage as BucketKey].title, exact: true }).waitFor();
    await details.getByText(entry.requestId).first().waitFor();
    // Keyboard: Escape hands the focus back to the log, and Enter opens the selected row again.
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'hidden' });
    await page.locator('[role="grid"]:focus').waitFor();
    await page.keyboard.press('Enter');
    await details.getByTestId('detail-cost').waitFor();
    await page.keyboard.press('Escape');
  });

  test('the log filters on the server and exports the current filter as CSV', async () => {
    const [entry] = await gw.admin.logs({ key: 'laptop' });
    const row = page.locator(`[data-request-id="${entry!.requestId}"]`);
    await page.getByLabel('Filter by status').selectOption('error');
    await page.getByText('No requests match this filter').waitFor();
    await page.getByLabel('Filter by status').selectOption('ok');
    await page.getByLabel('Filter by line').selectOption('local');
    await row.waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^tollgate-usage-\d{4}-\d\d-\d\d\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\n');
    assert.match(lines[0]!, /^id,time,request_id,key,model,/);
    assert.equal(lines.length, 2, 'the one matching request');
    assert.ok(lines[1]!.includes(entry!.requestId), lines[1]);
    await page.getByLabel('Filter by status').selectOption('');
    await page.getByLabel('Filter by line').selectOption('');
  });

  test("the overview shows the day's spend and requests, live", async () => {
    await gotoPage(page, '1', 'Overview');
    const [entry] = await gw.admin.logs({ key: 'laptop' });
    // The last 24 hours' total (to the cent, or exact when under a cent), the request's own cost to
    // the micro-dollar (gateway/contract/money.ts).
    await page.getByRole('radio', { name: '24 h' }).click();
    await page.locator('.stat', { hasText: 'Spend, last 24 hours' }).getByText(spendText(entry!.costMicro)).waitFor();
    await page
      .getByRole('cell', { name: usdCost(entry!.costMicro) })
      .first()
      .waitFor();
    await page.locator('.chart-legend').getByText('gpt-4o').waitFor();
  });

  test('turning the key off in one click makes the gateway answer 401', async () => {
    await gotoPage(page, '3', 'Keys');
    await page.getByRole('switch', { name: 'Key laptop enabled' }).click();
    await page.locator('tr[data-key="laptop"]').getByText('disabled').waitFor();
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret, maxRetries: 0 });
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.AuthenticationError, String(err));
        assert.equal(err.status, 401);
        return true;
      },
    );
    await page.getByRole('switch', { name: 'Key laptop enabled' }).click();
    await waitFor(async () => (await gw.admin.client.call('listKeys')).keys[0]!.state === 'enabled', 'key re-enabled');
  });

  test('the playground streams a reply through its own key and shows the row it made', async () => {
    await gotoPage(page, '8', 'Playground');
    await page.getByRole('button', { name: 'Make a Playground key' }).click();
    await page.getByText('secret is in this tab').waitFor();
    await page.getByLabel('Model').selectOption('gpt-4o');
    for (const protocol of ['Anthropic Messages', 'OpenAI Chat Completions']) {
      await page.getByLabel('Client protocol').selectOption({ label: protocol });
      await page.getByLabel('Prompt').fill(`stream me via ${protocol}`);
      await page.getByLabel('Prompt').press('Control+Enter');
      await page
        .getByTestId('reply')
        .filter({ hasText: `mock reply to: stream me via ${protocol}` })
        .waitFor();
      await page.getByTestId('playground-row').waitFor();
    }
    const playgroundKeys = (await gw.admin.client.call('listKeys')).keys.filter((k) => k.madeBy === 'playground');
    assert.equal(playgroundKeys.length, 1);
    const rows = await gw.admin.logs({ key: playgroundKeys[0]!.name });
    assert.deepEqual(
      rows.map((r) => [r.inboundProtocol, r.stream, r.status]),
      [
        ['openai-chat', true, 200],
        ['anthropic', true, 200],
      ],
    );
    const stored = await page.evaluate<string>(STORAGE);
    assert.doesNotMatch(stored, /sk-/, 'no secret in page storage');
  });

  test('logging out ends the session', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in to the console' }).waitFor();
    assert.deepEqual(c.problems, []);
  });
});
