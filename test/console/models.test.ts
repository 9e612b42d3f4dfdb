/**
 * The Models page in real Chromium against a real gateway and the mock upstream: add a custom model
 * with prices, edit its output price, bill a request made with the openai SDK at the new price to
 * the micro-USD, remove it; the table fits a 1360 px window; axe and screenshots with the dialog open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
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
const ID = 'acme-coder-7b';

/** Whether the models table is wider than its frame (a column cut off). */
async function overflows(page: Page): Promise<number> {
  return page
    .locator('.table-wrap')
    .evaluate((el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth - el.clientWidth);
}

describe('console models page', { skip }, () => {
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
    await gw.admin.topup(10);
    c = await openConsole(browser, gw);
    page = c.page;
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('the catalogue fits a 1360 px window without a horizontal scroll', async () => {
    await gotoPage(page, '5', 'Models');
    await page.locator('tr[data-model]').first().waitFor();
    assert.ok((await overflows(page)) <= 0, `the table is ${await overflows(page)} px wider than its frame`);
  });

  test('the catalogue sorts by a column from its header, by mouse and by keyboard', async () => {
    const output = page.getByRole('columnheader', { name: 'Output' });
    const outputs = async (): Promise<number[]> =>
      (await page.locator('tr[data-model] td.num:nth-of-type(4)').allTextContents()).map((t) =>
        Number(t.replace(/[$,]/g, '')),
      );
    assert.equal(await output.getAttribute('aria-sort'), null);
    // Prices sort dearest first on the first press, cheapest first on the second.
    await output.getByRole('button').click();
    assert.equal(await output.getAttribute('aria-sort'), 'descending');
    const desc = await outputs();
    assert.ok(desc.length > 5);
    assert.deepEqual(
      desc,
      [...desc].sort((a, b) => b - a),
    );
    await output.getByRole('button').focus();
    await page.keyboard.press('Enter');
    assert.equal(await output.getAttribute('aria-sort'), 'ascending');
    const asc = await outputs();
    assert.deepEqual(
      asc,
      [...asc].sort((a, b) => a - b),
    );
    // The third press goes back to the catalogue's own order.
    await page.keyboard.press('Space');
    assert.equal(await output.getAttribute('aria-sort'), null);
    const model = page.getByRole('columnheader', { name: 'Model' });
    await model.getByRole('button').click();
    assert.equal(await model.getAttribute('aria-sort'), 'ascending');
    const ids = await page
      .locator('tr[data-model]')
      .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
        rows.map((r) => r.getAttribute('data-model')!),
      );
    assert.deepEqual(ids, [...ids].sort());
    await model.getByRole('button').click();
    await model.getByRole('button').click();
  });

  test('add a custom model with its prices', async () => {
    await page.getByRole('button', { name: /Add model/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a model' });
    await dialog.getByLabel('Model id').fill(ID);
    await dialog.getByLabel('Vendor').fill('acme');
    await dialog.getByLabel('Display name').fill('Acme Coder 7B');
    await dialog.getByLabel('Context window (tokens)').fill('32000');
    await dialog.getByLabel('Max output (tokens)').fill('8000');
    await dialog.getByLabel('Input', { exact: true }).fill('1.25');
    await dialog.getByLabel('Output', { exact: true }).fill('3.5');
    await dialog.getByLabel('Cache read').fill('0.125');
    await dialog.getByLabel('Cache write').fill('1.5');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator(`tr[data-model="${ID}"]`);
    await row.getByText('custom', { exact: true }).waitFor();
    assert.deepEqual(await row.locator('td.num').allTextContents(), ['$1.25', '$3.50', '$0.125', '$1.50', '32k']);
    const m = await gw.admin.modelOf(ID);
    assert.deepEqual(
      [m.origin, m.vendor, m.displayName, m.contextWindow, m.maxOutputTokens],
      ['custom', 'acme', 'Acme Coder 7B', 32_000, 8_000],
    );
    assert.deepEqual(m.prices, { input: 1_250_000, output: 3_500_000, cacheRead: 125_000, cacheWrite: 1_500_000 });
  });

  test('edit its output price from the row menu; a request is billed at the new price to the micro-USD', async () => {
    await page.getByRole('button', { name: `Actions for model ${ID}` }).click();
    await page.getByRole('menuitem', { name: 'Edit prices…' }).click();
    const dialog = page.getByRole('dialog', { name: `Edit model "${ID}"` });
    assert.equal(await dialog.getByLabel('Output', { exact: true }).inputValue(), '3.50', 'prefilled');
    await dialog.getByLabel('Output', { exact: true }).fill('7.125');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.locator(`tr[data-model="${ID}"]`).getByText('$7.125').waitFor();
    assert.deepEqual((await gw.admin.modelOf(ID)).prices, {
      input: 1_250_000,
      output: 7_125_000,
      cacheRead: 125_000,
      cacheWrite: 1_500_000,
    });

    await gw.admin.line({
      name: 'local',
      baseUrl: `${mock.url}/v1`,
      models: [ID, 'gpt-4o'],
      modelMap: { [ID]: 'mock-small', 'gpt-4o': 'mock-small' },
    });
    const secret = await gw.admin.key('models-test');
    const reply = await gw
      .openai(secret)
      .chat.completions.create({ model: ID, messages: [{ role: 'user', content: 'price me at the new rate' }] });
    assert.match(reply.choices[0]!.message.content ?? '', /mock reply/);
    const [entry] = await gw.admin.logs({ key: 'models-test' });
    assert.ok(entry && entry.status === 200, 'the request was logged');
    const u = entry.usage;
    assert.ok(u.outputTokens > 0);
    // tokens × price per million, summed, rounded up to the micro-USD (docs/money.md), in exact integers.
    const total =
      BigInt(u.inputTokens) * 1_250_000n +
      BigInt(u.outputTokens) * 7_125_000n +
      BigInt(u.cacheReadTokens) * 125_000n +
      BigInt(u.cacheWriteTokens) * 1_500_000n;
    const expected = Number((total + 999_999n) / 1_000_000n);
    assert.equal(entry.costMicro, expected);
    assert.equal(entry.breakdown?.prices.output, 7_125_000);

    await gotoPage(page, '4', 'Usage log');
    const logRow = page.locator(`[data-request-id="${entry.requestId}"]`);
    await logRow.waitFor({ timeout: 10_000 });
    assert.equal(
      (await logRow.getByTestId('row-cost').textContent())?.trim(),
      `$${(expected / 1e6).toFixed(6).replace(/0+$/, '')}`,
    );
    await gotoPage(page, '5', 'Models');
    await page.locator(`tr[data-model="${ID}"]`).getByText('local').waitFor();
    await page.getByLabel('Search').fill('acme');
    await c.settled();
    assert.deepEqual(await axeViolations(page), [], 'the badges and a served custom row');
    await screenshot(page, 'models-custom-light');
    await page.getByLabel('Search').fill('');
  });

  test('a preset model gets an override badge and resets to its preset prices', async () => {
    const preset = (await gw.admin.client.call('listModels')).models.find((m) => m.origin === 'preset')!;
    const row = page.locator(`tr[data-model="${preset.id}"]`);
    await page.getByLabel('Search').fill(preset.id);
    await row.getByRole('button', { name: `Actions for model ${preset.id}` }).click();
    await page.getByRole('menuitem', { name: 'Edit prices…' }).click();
    const dialog = page.getByRole('dialog', { name: `Edit model "${preset.id}"` });
    await dialog.getByLabel('Input', { exact: true }).fill('0.5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row.getByText('overridden').waitFor();
    const changed = await gw.admin.modelOf(preset.id);
    assert.equal(changed.prices.input, 500_000);
    assert.deepEqual(changed.presetPrices, preset.prices);
    assert.equal(changed.prices.output, preset.prices.output, 'only the changed price is overridden');
    await row.getByRole('button', { name: `Actions for model ${preset.id}` }).click();
    await page.getByRole('menuitem', { name: 'Reset to preset prices' }).click();
    await row.getByText('overridden').waitFor({ state: 'detached' });
    const back = await gw.admin.modelOf(preset.id);
    assert.deepEqual([back.prices, back.presetPrices], [preset.prices, null]);
    await page.getByLabel('Search').fill('');
  });

  test('remove the custom model, after a confirmation', async () => {
    await page.getByRole('button', { name: `Actions for model ${ID}` }).click();
    await page.getByRole('menuitem', { name: 'Remove…' }).click();
    const confirm = page.getByRole('dialog', { name: `Remove model "${ID}"?` });
    await confirm.getByText('taken off line local').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(await gw.admin.model(ID), 'cancel keeps it');
    await page.getByRole('button', { name: `Actions for model ${ID}` }).click();
    await page.getByRole('menuitem', { name: 'Remove…' }).click();
    await confirm.getByRole('button', { name: 'Remove model' }).click();
    await page.locator(`tr[data-model="${ID}"]`).waitFor({ state: 'detached' });
    await waitFor(async () => (await gw.admin.model(ID)) === undefined, 'model removed');
    assert.deepEqual(c.problems, []);
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`the page and its dialog in the ${theme} theme pass axe and are captured`, async () => {
      const t = await openConsole(browser, gw, { theme });
      try {
        await gotoPage(t.page, '5', 'Models');
        await t.page.locator('tr[data-model]').first().waitFor();
        await t.settled();
        assert.ok((await overflows(t.page)) <= 0, 'the table fits');
        assert.deepEqual(await axeViolations(t.page), []);
        await screenshot(t.page, `models-${theme}`);
        await t.page.keyboard.press('n');
        const dialog = t.page.getByRole('dialog', { name: 'Add a model' });
        await dialog.waitFor();
        await dialog.getByLabel('Model id').fill('local-model');
        await dialog.getByLabel('Input', { exact: true }).fill('abc');
        await dialog.getByLabel('Output', { exact: true }).fill('1');
        await dialog.getByRole('button', { name: 'Add model' }).click();
        // The problem is said once, at its field, which is marked invalid and described by it.
        await dialog.getByRole('alert').getByText('Enter USD per million tokens').waitFor();
        const input = dialog.getByLabel('Input', { exact: true });
        assert.equal(await input.getAttribute('aria-invalid'), 'true');
        assert.equal(await input.getAttribute('aria-describedby'), 'model-price-input-error');
        assert.equal(await dialog.getByRole('alert').count(), 1);
        await t.page.waitForTimeout(300);
        assert.deepEqual(await axeViolations(t.page), []);
        await screenshot(t.page, `models-dialog-${theme}`);
        assert.deepEqual(t.problems, []);
      } finally {
        await t.close();
      }
    });
  }
});
