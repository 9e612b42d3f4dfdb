/**
 * The key form's agent-session guards in real Chromium against a gateway: session cap, budgets over
 * the four windows, loop limit and project, each checked at its field as it is typed, saved through
 * the admin API (checked there), shown briefly in the keys list, and changed or cleared by editing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  assertConsoleBuilt,
  axeViolations,
  browserSkipReason,
  gotoPage,
  launch,
  openConsole,
  screenshot,
} from './browser.js';

const skip = browserSkipReason();

describe('the key form: session guards', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;

  before(async () => {
    assertConsoleBuilt();
    gw = await startGateway();
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const keyNamed = async (name: string) =>
    (await gw.admin.call('listKeys', {})).keys.find((k) => k.name === name) ?? assert.fail(`no key ${name}`);

  test('creates a key with a cap, budgets, a loop limit and a project; a wrong field says so where it is', async () => {
    const c = await openConsole(browser, gw);
    try {
      const { page } = c;
      await gotoPage(page, '3', 'Keys');
      await page.keyboard.press('n');
      const dialog = page.getByRole('dialog', { name: 'Create a key' });
      await dialog.getByLabel('Name').fill('agents');
      const cap = dialog.getByLabel('Session cap (USD)');
      await cap.fill('2.5.0');
      assert.equal(await cap.getAttribute('aria-invalid'), 'true');
      await dialog.getByText('Session cap: a dollar amount above 0').waitFor();
      await cap.fill('0');
      assert.equal(await cap.getAttribute('aria-invalid'), 'true', 'a cap of 0 is refused at the field');
      await cap.fill('2.50');
      assert.equal(await cap.getAttribute('aria-invalid'), 'false');
      assert.equal(await dialog.getByText('Session cap: a dollar amount').count(), 0);
      const loop = dialog.getByLabel('Loop limit');
      await loop.fill('-1');
      await dialog.getByText('Loop limit: a whole number from 0 (off) to 1000.').waitFor();
      assert.deepEqual(await axeViolations(page), [], 'the form with a field in error');
      await screenshot(page, 'key-form-guards-light');
      // Submitting with a field in error sends nothing.
      await dialog.getByRole('button', { name: 'Create key' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'Loop limit' }).first().waitFor();
      assert.equal((await gw.admin.call('listKeys', {})).keys.length, 0);
      await loop.fill('0');
      await dialog.getByLabel('Budget per 5 hours').fill('1');
      await dialog.getByLabel('Budget per 1 day').fill('$4');
      await dialog.getByLabel('Budget per 30 days').fill('50');
      await dialog.getByLabel('Project').fill('tollgate-repo');
      await dialog.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('button', { name: 'I have copied it' }).click();
      const k = await keyNamed('agents');
      assert.deepEqual(
        [k.sessionCapMicro, k.budgets, k.loopLimit, k.project],
        [2_500_000, { '5h': 1_000_000, '1d': 4_000_000, '30d': 50_000_000 }, 0, 'tollgate-repo'],
      );
      const row = page.locator('tr[data-key="agents"]');
      await row
        .getByText('cap $2.50 · 5h $1.00 · 1d $4.00 · 30d $50.00 · loop guard off · project tollgate-repo')
        .waitFor();
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });

  test('editing shows the saved guards, changes one window and clears others', async () => {
    const c = await openConsole(browser, gw);
    try {
      const { page } = c;
      await gotoPage(page, '3', 'Keys');
      await page.getByRole('button', { name: 'Actions for key agents' }).click();
      await page.getByRole('menuitem', { name: 'Edit…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit key "agents"' });
      assert.equal(await dialog.getByLabel('Session cap (USD)').inputValue(), '2.50');
      assert.equal(await dialog.getByLabel('Budget per 1 day').inputValue(), '4.00');
      assert.equal(await dialog.getByLabel('Loop limit').inputValue(), '0');
      await dialog.getByLabel('Session cap (USD)').fill('');
      await dialog.getByLabel('Budget per 5 hours').fill('');
      await dialog.getByLabel('Budget per 7 days').fill('12.5');
      await dialog.getByLabel('Loop limit').fill('');
      await dialog.getByLabel('Project').fill('');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      const k = await keyNamed('agents');
      assert.deepEqual(
        [k.sessionCapMicro, k.budgets, k.loopLimit, k.project],
        [null, { '1d': 4_000_000, '7d': 12_500_000, '30d': 50_000_000 }, 5, null],
      );
      await page
        .locator('tr[data-key="agents"]')
        .getByText('1d $4.00 · 7d $12.50 · 30d $50.00', { exact: true })
        .waitFor();
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });
});
