/**
 * The Settings page tells the truth about what applies when: a saved port the gateway does not
 * listen on yet is named as such; in a browser it says to restart `tollgate serve`, inside the
 * desktop app it offers to restart the app's gateway (a stand-in for the preload's bridge records
 * the call, or refuses with the app's reason). The CA file for upstream TLS is checked when saved
 * and counted once in force. Real Chromium against a real gateway.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';
import { assertConsoleBuilt, browserSkipReason, gotoPage, launch, openConsole } from './browser.js';

const skip = browserSkipReason();

/** The preload's bridge as the page sees it; `__restartAnswer` decides what the app answers. */
const BRIDGE = `
  window.__restarts = 0;
  window.__restartAnswer = { restarting: true };
  window.tollgate = {
    consoleUrl: location.origin,
    copyText: () => Promise.resolve(),
    restartGateway: () => (window.__restarts++, Promise.resolve(window.__restartAnswer)),
  };
`;

describe('settings: when host and port apply, and the CA file', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let ca: TestCa;

  before(async () => {
    assertConsoleBuilt();
    ca = makeTestCa();
    gw = await startGateway();
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  test('in a browser: a saved port the gateway does not listen on yet says to restart tollgate serve', async () => {
    // The test gateway listens on a port of its own choosing (as `serve --port` would): saved as the setting, nothing is pending.
    await gw.admin.client.call('updateSettings', { body: { port: Number(new URL(gw.url).port) } });
    const c = await openConsole(browser, gw);
    try {
      await gotoPage(c.page, '0', 'Settings');
      await c.page.getByLabel('Port').waitFor();
      assert.equal(await c.page.getByTestId('bind-pending').count(), 0, 'nothing pending at first');
      await c.page.getByLabel('Port').fill('4999');
      await c.page.getByRole('button', { name: 'Save changes' }).click();
      const note = c.page.getByTestId('bind-pending');
      await note.waitFor();
      assert.match(
        await note.innerText(),
        /Saved 127\.0\.0\.1:4999; the gateway still listens on .*Restart tollgate serve/,
      );
      assert.equal(await c.page.getByRole('button', { name: 'Restart the gateway now' }).count(), 0);
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });

  test('inside the app: the page restarts the gateway through the bridge, or shows why the app will not', async () => {
    const c = await openConsole(browser, gw, { initScript: BRIDGE });
    try {
      await gotoPage(c.page, '0', 'Settings');
      await c.page.getByText('Address and port apply when the app restarts its gateway').waitFor();
      await c.page.evaluate(
        `window.__restartAnswer = { restarting: false, reason: 'Not restarted: port 4999 is in use by another program.' }`,
      );
      await c.page.getByRole('button', { name: 'Restart the gateway now' }).click();
      await c.page.getByRole('alert').filter({ hasText: 'port 4999 is in use by another program' }).waitFor();
      await c.page.evaluate(`window.__restartAnswer = { restarting: true }`);
      await c.page.getByRole('button', { name: 'Restart the gateway now' }).click();
      await c.page.getByText('Restarting the gateway; this window opens again on the new address.').waitFor();
      assert.equal(await c.page.evaluate<number>('window.__restarts'), 2);
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });

  test('a CA file is checked when saved, then counted as in force', async () => {
    const c = await openConsole(browser, gw);
    try {
      await gotoPage(c.page, '0', 'Settings');
      await c.page.getByLabel('CA file (PEM)').fill(join(ca.dir, 'server.key'));
      await c.page.getByRole('button', { name: 'Save changes' }).click();
      await c.page.getByText('holds no PEM certificate').first().waitFor();
      assert.equal((await gw.admin.client.call('getSettings')).caFile, null, 'nothing stored');
      await c.page.getByLabel('CA file (PEM)').fill(ca.caFile);
      await c.page.getByRole('button', { name: 'Save changes' }).click();
      await c.page
        .getByTestId('ca-added')
        .filter({ hasText: '1 certificate trusted besides the built-in ones' })
        .waitFor();
      assert.equal((await gw.admin.client.call('getSettings')).caFile, ca.caFile);
      const system = c.page.getByRole('switch', { name: 'Trust the system certificate store' });
      assert.equal(await system.isDisabled(), !(await gw.admin.client.call('getSettings')).systemCaAvailable);
    } finally {
      await c.close();
    }
  });
});
