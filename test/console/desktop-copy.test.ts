/**
 * Copying inside the desktop app: the console copies through the app's bridge
 * (`window.tollgate.copyText`, which the app's preload exposes) and not through the browser's
 * clipboard API, so a Copy button works whatever the window's permissions. Real Chromium, a real
 * gateway, and a stand-in for the preload's bridge that records what it is given.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { assertConsoleBuilt, browserSkipReason, gotoPage, launch, openConsole, type ConsolePage } from './browser.js';

const skip = browserSkipReason();

/** The preload's bridge as the page sees it, recording copies; and the browser API, recording any use. */
const BRIDGE = `
  window.__bridgeCopies = [];
  window.__browserCopies = [];
  window.tollgate = {
    consoleUrl: location.origin,
    copyText: (text) => (window.__bridgeCopies.push(String(text)), Promise.resolve()),
  };
  if (navigator.clipboard) {
    navigator.clipboard.writeText = (text) => (window.__browserCopies.push(String(text)), Promise.reject(new Error('denied')));
  }
`;

describe('copying in the desktop app', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    assertConsoleBuilt();
    gw = await startGateway();
    browser = await launch();
    c = await openConsole(browser, gw, { clipboard: false, initScript: BRIDGE });
    page = c.page;
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
  });

  test("a new key's secret is copied through the bridge, not the browser's clipboard API", async () => {
    await gotoPage(page, '3', 'Keys');
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Create a key' });
    await dialog.getByLabel('Name').fill('desk');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').textContent())!.trim();
    assert.match(secret, /^sk-/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copy secret' }).filter({ hasText: 'Copied' }).waitFor();
    assert.deepEqual(await page.evaluate<string[]>('window.__bridgeCopies'), [secret]);
    assert.deepEqual(await page.evaluate<string[]>('window.__browserCopies'), [], 'the browser API was not used');
    await page.getByRole('button', { name: 'I have copied it' }).click();
  });

  test("a key's id from its row menu goes the same way", async () => {
    await page.locator('tr[data-key="desk"]').waitFor();
    await page.getByRole('button', { name: 'Actions for key desk' }).click();
    await page.getByRole('menuitem', { name: 'Copy key id' }).click();
    await page.getByText('Copied the id of key "desk".').waitFor();
    const copies = await page.evaluate<string[]>('window.__bridgeCopies');
    assert.equal(copies.length, 2);
    assert.match(copies[1]!, /^key_/);
    assert.deepEqual(c.problems, []);
  });

  test('without the bridge (a plain browser) the browser API is used, and a refusal says so', async () => {
    const plain = await openConsole(browser, gw, {
      clipboard: false,
      initScript: `navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));`,
    });
    try {
      await gotoPage(plain.page, '3', 'Keys');
      await plain.page.getByRole('button', { name: 'Actions for key desk' }).click();
      await plain.page.getByRole('menuitem', { name: 'Copy key id' }).click();
      await plain.page.getByText('The browser refused clipboard access').waitFor();
    } finally {
      await plain.close();
    }
  });
});
