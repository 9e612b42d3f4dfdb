/**
 * Adding a line right the first time, in real Chromium: a preset pointed at another address under
 * Advanced, the server's model list fetched and ticked with new ids priced inline, each refusal
 * once at its field, the keychain offered only where there is one, an unset key variable warned
 * about on save, Edit changing where the key comes from, and the dialog's buttons in view at
 * 1280×720.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import { startGateway, tempDataDir, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertConsoleBuilt, browserSkipReason, gotoPage, launch, openConsole, type ConsolePage } from './browser.js';

const skip = browserSkipReason();

/** No OS keychain, as on a headless Linux box without a Secret Service. */
class NoKeychain extends MemorySecretStore {
  override async set(): Promise<void> {
    throw new Error('Platform failure: DBus error: autolaunch was disabled');
  }
}

describe('adding a line in the console', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway(tempDataDir(), new MemorySecretStore());
    await gw.admin.topup(5);
    browser = await launch();
    c = await openConsole(browser, gw);
    page = c.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    await gotoPage(page, '6', 'Lines');
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('a preset with its base URL changed under Advanced works in one try', async () => {
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Add a line' });
    await dialog.getByLabel('Provider').selectOption('deepseek');
    await dialog.getByLabel('API key').fill('sk-proxy-key');
    await dialog.getByText('Advanced').click();
    await dialog.getByLabel('Base URL').fill(`${mock.url}/v1`);
    // The buttons stay in view at 1280×720 however long the form is.
    assert.ok(await dialog.getByRole('button', { name: 'Add line' }).isVisible());
    const box = await dialog.getByRole('button', { name: 'Add line' }).boundingBox();
    assert.ok(box && box.y + box.height <= 720, `the Add line button is on screen (y ${box?.y})`);
    await dialog.getByRole('button', { name: 'Add line' }).click();
    await page.locator('tr[data-line="deepseek"]').waitFor();
    const line = (await gw.admin.call('listLines')).lines.find((l) => l.name === 'deepseek')!;
    assert.equal(line.baseUrl, `${mock.url}/v1`);
    const secret = await gw.admin.key('proxy-user');
    const reply = await gw
      .openai(secret)
      .chat.completions.create({ model: line.models[0]!, messages: [{ role: 'user', content: 'via the proxy' }] });
    assert.match(reply.choices[0]!.message.content ?? '', /mock reply/);
  });

  test('fetching the server’s models gives a checklist; a new id is priced inline and the line serves it', async () => {
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Add a line' });
    await dialog.getByLabel('Provider').selectOption('');
    await dialog.getByLabel('Name').fill('company');
    await dialog.getByLabel('Base URL').fill(`${mock.url}/v1`);
    await dialog.getByText('No key (local server)').click();
    await dialog.getByRole('button', { name: 'Fetch models from the server' }).click();
    const list = dialog.getByRole('group', { name: 'Models the server lists' });
    await list.getByText('mock-small').waitFor();
    // Neither is in the catalogue: nothing is ticked for the person.
    assert.equal(await list.getByRole('checkbox', { checked: true }).count(), 0);
    await list.getByRole('checkbox').first().check();
    await dialog.getByText(/new to the catalogue/).waitFor();
    // A price left out is refused at its field, once, and no toast covers the dialog.
    await dialog.getByRole('button', { name: 'Add line' }).click();
    await dialog.getByText('Give the input and output price').waitFor();
    assert.equal(await page.locator('.toast-error').count(), 0);
    await dialog.getByLabel('Input, USD per million tokens').fill('0.5');
    await dialog.getByLabel('Output, USD per million tokens').fill('1.5');
    await dialog.getByRole('button', { name: 'Add line' }).click();
    await page.locator('tr[data-line="company"]').waitFor();
    const model = await gw.admin.modelOf('mock-small');
    assert.deepEqual([model.prices.input, model.prices.output], [500_000, 1_500_000]);
  });

  test('catalogue ids complete as they are typed, and a taken name is refused at the Name field', async () => {
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Add a line' });
    await dialog.getByLabel('Provider').selectOption('');
    await dialog.getByLabel('Name').fill('company');
    await dialog.getByLabel('Base URL').fill(`${mock.url}/v1`);
    await dialog.getByText('No key (local server)').click();
    const models = dialog.getByLabel('Models', { exact: true });
    const options = await page
      .locator(
        `datalist#${await models.evaluate((el: { getAttribute(n: string): string | null }) => el.getAttribute('list'))} option`,
      )
      .evaluateAll((os: { getAttribute(n: string): string | null }[]) => os.map((o) => o.getAttribute('value')));
    assert.ok(options.includes('gpt-4o'), 'the catalogue ids are offered');
    await models.fill('gpt-4o');
    await models.press('Enter');
    await dialog.getByRole('list', { name: 'Models chosen' }).getByText('gpt-4o').waitFor();
    await dialog.getByRole('button', { name: 'Add line' }).click();
    const name = dialog.getByLabel('Name');
    await dialog.getByText('A line named "company" already exists.').waitFor();
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('.toast-error').count(), 0, 'said once, at the field');
    await page.keyboard.press('Escape');
  });

  test('Edit changes where the key comes from', async () => {
    await page.getByRole('button', { name: 'Actions for line company' }).click();
    await page.getByRole('menuitem', { name: 'Edit…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit line "company"' });
    await dialog.getByText('Store in the OS keychain').click();
    await dialog.getByLabel('API key').fill('sk-now-in-the-keychain');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const line = (await gw.admin.call('listLines')).lines.find((l) => l.name === 'company')!;
    assert.equal(line.apiKeySource, 'keychain');
    assert.deepEqual(c.problems, []);
  });

  test('Groups pick their models with the same completion over catalogue ids', async () => {
    await gotoPage(page, '7', 'Groups');
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Add a group' });
    await dialog.getByLabel('Name').fill('team');
    const models = dialog.getByLabel('Models', { exact: true });
    assert.ok(await models.getAttribute('list'), 'the input completes from a list');
    await models.fill('gpt-4o');
    await models.press('Enter');
    await dialog.getByRole('list', { name: 'Models chosen' }).getByText('gpt-4o').waitFor();
    await dialog.getByRole('button', { name: 'Add group' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const team = (await gw.admin.call('listGroups')).groups.find((g) => g.name === 'team')!;
    assert.deepEqual(team.models, ['gpt-4o']);
  });

  test('without a keychain the choice is disabled with its reason, and an unset variable is warned about', async () => {
    const bare = await startGateway(tempDataDir(), new NoKeychain());
    const other = await openConsole(browser, bare);
    try {
      await gotoPage(other.page, '6', 'Lines');
      await other.page.keyboard.press('n');
      const dialog = other.page.getByRole('dialog', { name: 'Add a line' });
      await dialog.getByLabel('Provider').selectOption('openai');
      assert.equal(await dialog.getByRole('radio', { name: 'Store in the OS keychain' }).isDisabled(), true);
      await dialog.getByText(/no OS keychain Tollgate can use/).waitFor();
      assert.equal(await dialog.getByRole('radio', { name: 'Environment variable' }).isChecked(), true);
      await dialog.getByRole('textbox', { name: 'Environment variable' }).fill('TOLLGATE_CONSOLE_UNSET_API_KEY');
      await dialog.getByRole('button', { name: 'Add line' }).click();
      await other.page.locator('.toast').getByText('TOLLGATE_CONSOLE_UNSET_API_KEY is not set').waitFor();
      assert.equal(await other.page.getByText(/DBus|line_[0-9a-f]{6}/).count(), 0);
      assert.deepEqual(other.problems, []);
    } finally {
      await other.close();
      await bare.close();
    }
  });
});
