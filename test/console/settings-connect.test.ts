/**
 * The console's Settings, wallet adjustment and Connect flows in real Chromium against a real
 * gateway whose connect routes edit a temporary HOME (test/helpers/gateway.ts): a setting changed
 * and still there after a reload, a signed adjustment in the history with the invariant intact,
 * Claude Code connected through the previewed diff and disconnected back to nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { usd } from '../../gateway/contract/money.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertConsoleBuilt, browserSkipReason, gotoPage, launch, openConsole, type ConsolePage } from './browser.js';

const skip = browserSkipReason();

describe('console settings, adjustments and connect', { skip }, () => {
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
    await gw.admin.line({
      name: 'local',
      baseUrl: `${mock.url}/v1`,
      models: ['gpt-4o', 'gpt-4o-mini'],
      modelMap: { 'gpt-4o': 'mock-small', 'gpt-4o-mini': 'mock-small' },
    });
    browser = await launch();
    c = await openConsole(browser, gw);
    page = c.page;
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('a changed setting is saved in the gateway and still there after a reload', async () => {
    await gotoPage(page, '0', 'Settings');
    await page.getByLabel('Keep usage-log rows for (days)').fill('45');
    await page.getByRole('switch', { name: 'Store request bodies' }).check();
    await page.getByLabel('Warn below (USD)').fill('10');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved.').waitFor();
    const saved = await gw.admin.client.call('getSettings');
    assert.deepEqual([saved.retentionDays, saved.storeBodies, saved.lowBalanceMicro], [45, true, 10_000_000]);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    assert.equal(await page.getByLabel('Keep usage-log rows for (days)').inputValue(), '45');
    assert.equal(await page.getByRole('switch', { name: 'Store request bodies' }).isChecked(), true);
    // A LAN bind is stored only after the warning is confirmed.
    await page.getByLabel('Bind address').fill('0.0.0.0');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const confirm = page.getByRole('dialog', { name: 'Expose the gateway to your network?' });
    await confirm.waitFor();
    assert.equal(
      (await gw.admin.client.call('getSettings')).host,
      '127.0.0.1',
      'nothing stored before the confirmation',
    );
    await confirm.getByRole('button', { name: 'Bind to the network' }).click();
    await page.getByText('after the next start, other machines on your network').waitFor();
    assert.deepEqual(await gw.admin.client.call('getSettings').then((s) => [s.host, s.lan]), ['0.0.0.0', true]);
    // The balance ($5) is below the $10 threshold: the Wallet and Overview pages say so.
    await gotoPage(page, '1', 'Overview');
    await page.getByTestId('low-balance').waitFor();
  });

  test("with bodies stored, a request's body shows in the log's details panel", async () => {
    const secret = await gw.admin.key('bodies');
    await gw
      .openai(secret)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'remember this prompt' }] });
    await gotoPage(page, '4', 'Usage log');
    await page.locator('.log-body').first().click();
    const body = page.getByRole('dialog').getByLabel('Request body');
    await body.waitFor();
    assert.match(await body.innerText(), /"content": "remember this prompt"/);
    await page.keyboard.press('Escape');
  });

  test('a signed adjustment with its note shows in the history; the ledger invariant holds', async () => {
    await gotoPage(page, '2', 'Wallet');
    await page.getByTestId('low-balance').waitFor();
    const before = await gw.admin.wallet();
    await page.getByLabel('Adjustment (USD, signed)').fill('-1.25');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await page.getByText('Say why in the note').waitFor();
    await page.getByLabel('Reason (required)').fill('top-up entered twice');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await page.getByRole('cell', { name: 'top-up entered twice' }).waitFor();
    await page.getByRole('cell', { name: '-$1.25' }).waitFor();
    const w = await gw.admin.wallet();
    assert.deepEqual([w.balanceMicro, w.adjustmentsMicro], [before.balanceMicro - 1_250_000, -1_250_000]);
    await page
      .getByTestId('balance')
      .filter({ hasText: usd(w.balanceMicro) })
      .waitFor();
    assert.equal((await gw.admin.doctor()).ok, true);
  });

  test('connect Claude Code: the diff first, then written, status connected; disconnect puts the HOME back', async () => {
    const settingsFile = join(gw.home, '.claude/settings.json');
    await gotoPage(page, '9', 'Connect');
    await page.getByRole('button', { name: 'Connect Claude Code' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Claude Code' });
    await dialog.getByLabel('Main model').selectOption('gpt-4o');
    await dialog.getByLabel('Small/fast model').selectOption('gpt-4o-mini');
    await dialog.getByRole('button', { name: 'Preview changes' }).click();
    const diff = dialog.getByLabel('Changes to', { exact: false });
    await diff.waitFor();
    const shown = await diff.innerText();
    assert.match(shown, /ANTHROPIC_BASE_URL/);
    assert.match(shown, /"ANTHROPIC_MODEL": "gpt-4o"/);
    assert.doesNotMatch(shown, /sk-[A-Za-z0-9]{20,}/, 'no secret in the preview');
    assert.equal(existsSync(settingsFile), false, 'the preview writes nothing');
    await dialog.getByRole('button', { name: 'Write changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    const tool = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Claude Code' }) });
    await tool.getByText('connected', { exact: true }).waitFor();
    await tool.getByText('claude-code (…').waitFor();
    const written = JSON.parse(readFileSync(settingsFile, 'utf8')) as { env: Record<string, string> };
    assert.equal(written.env.ANTHROPIC_BASE_URL, gw.url);
    assert.match(written.env.ANTHROPIC_AUTH_TOKEN!, /^sk-/);
    assert.doesNotMatch(
      await page.content(),
      new RegExp(written.env.ANTHROPIC_AUTH_TOKEN!),
      'the secret is not on the page',
    );
    const status = await gw.admin.client.call('connectStatus');
    assert.deepEqual(status.tools.find((t) => t.tool === 'claude-code')!.matches, true);

    await tool.getByRole('button', { name: 'Disconnect Claude Code' }).click();
    const confirm = page.getByRole('dialog', { name: 'Disconnect Claude Code?' });
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await tool.getByText('not connected').waitFor();
    assert.equal(existsSync(join(gw.home, '.claude')), false, 'the folder connect made is gone');
    assert.equal(
      (await gw.admin.client.call('listKeys')).keys.some((k) => k.name === 'claude-code'),
      false,
      'its key is deleted',
    );
    // The snippets, with their copy buttons.
    await page.getByRole('button', { name: 'Copy the curl snippet' }).click();
    assert.match(
      await page.evaluate<string>('navigator.clipboard.readText()'),
      new RegExp(`curl ${gw.url.replaceAll('.', '\\.')}`),
    );
    assert.deepEqual(c.problems, []);
  });
});
