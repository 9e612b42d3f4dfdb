/**
 * The packaged app, driven like a person would use it (docs/desktop.md, "What is run where"): it
 * starts on a temporary data dir, its tray is created, its console window opens logged in through
 * the one-time code main asks for, with the preload's bridge; a key is created there and copied
 * (the system clipboard is read back); one model request with that key goes through the gateway to
 * the mock upstream and its row appears in the console's usage log; then the app quits cleanly:
 * the gateway process closes (its runtime file gone, its pid gone, the ledger whole) and the app
 * exits with 0.
 *
 * Playwright's Electron support launches the app (`_electron.launch`). Which app: see harness.ts
 * (the release workflow installs the installer it built and names it in TOLLGATE_APP_EXECUTABLE).
 * With no Electron binary at all the test is skipped and says how to get one.
 */
import assert from 'node:assert/strict';
import { existsSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { readAdminToken } from '../../gateway/admin/token.js';
import { readRuntime } from '../../gateway/runtime.js';
import { gotoPage } from '../console/browser.js';
import { Admin, REPO, startGateway, waitFor } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { readFuses } from './fuses.js';
import { appEnv, appLogText, artifactsDir, findApp, prepareDataDir, processAlive } from './harness.js';

const found = findApp(process.env, REPO);
const SLOW = 60_000;

describe('the packaged app', { skip: 'skip' in found ? found.skip : false }, () => {
  let app: ElectronApplication;
  let mock: MockUpstream;
  let dataDir: string;
  let home: string;
  let url: string;
  let admin: Admin;
  let gatewayPid: number;
  let page: Page;
  let secret: string;
  const output: string[] = [];
  let failed = false;

  before(async () => {
    if ('error' in found) throw new Error(found.error);
    if (!('app' in found)) return;
    if (found.app.kind === 'packaged' && (await readFuses(found.app.executable)).enableNodeCliInspectArguments !== 'on')
      throw new Error(
        `${found.app.executable} has its Node inspector fuse off, as shipped; Playwright drives Electron through it. ` +
          'Run "node --import tsx test/packaged/allow-inspect.ts <executable>" on this copy first (the release workflow does).',
      );
    mock = await startMockUpstream();
    ({ dataDir, home } = prepareDataDir());
    app = await _electron.launch({
      executablePath: found.app.executable,
      args: found.app.args,
      env: appEnv(process.env, dataDir, home),
      // Chromium's sandbox stays on, as a user runs it (Playwright turns it off on Linux otherwise).
      chromiumSandbox: true,
      timeout: SLOW,
    });
    app.process().stdout?.on('data', (d: Buffer) => output.push(d.toString()));
    app.process().stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  });

  after(async () => {
    if (failed && dataDir) {
      const out = artifactsDir(REPO);
      writeFileSync(join(out, 'main.log'), appLogText(dataDir));
      writeFileSync(join(out, 'output.txt'), output.join(''));
      if (page && !page.isClosed()) await page.screenshot({ path: join(out, 'console.png') }).catch(() => undefined);
    }
    if (app && app.process().exitCode === null) await app.close().catch(() => app.process().kill());
    await mock?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Marks the run failed (for the artifacts) when the body throws. */
  const step = (name: string, body: () => Promise<void>) =>
    test(name, async () => {
      try {
        await body();
      } catch (err) {
        failed = true;
        throw err;
      }
    });

  step('starts its gateway on the temporary data dir and creates its tray', async () => {
    await waitFor(() => readRuntime(dataDir) !== undefined, 'the gateway to write its runtime file', SLOW);
    const runtime = readRuntime(dataDir)!;
    url = runtime.url;
    gatewayPid = runtime.pid;
    assert.notEqual(gatewayPid, app.process().pid, 'the gateway runs in a process of its own');
    admin = new Admin(url, readAdminToken(dataDir)!);
    // Compared as real paths: macOS's temporary folder is reached through a symlink.
    assert.equal(realpathSync((await admin.client.call('getStatus')).dataDir), realpathSync(dataDir));
    await waitFor(() => appLogText(dataDir).includes('tray created'), 'the tray', SLOW);
    assert.match(appLogText(dataDir), /gateway running at http:\/\/127\.0\.0\.1:\d+/);
  });

  step('opens the console window, logged in through its one-time code, with the bridge', async () => {
    page = await waitForConsole(app, url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: SLOW });
    assert.ok(!page.url().includes('code='), 'the login code is gone from the address');
    assert.deepEqual(
      await page.evaluate<{ consoleUrl?: string; copyText: string }>(
        '({ consoleUrl: window.tollgate?.consoleUrl, copyText: typeof window.tollgate?.copyText })',
      ),
      { consoleUrl: url, copyText: 'function' },
    );
  });

  step('creates a key in the console and copies it: the system clipboard holds the secret', async () => {
    await gotoPage(page, '3', 'Keys');
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'Create a key' });
    await dialog.getByLabel('Name').fill('packaged');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    secret = (await page.getByTestId('new-secret').textContent())!.trim();
    assert.match(secret, /^sk-[A-Za-z0-9]{48}$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copy secret' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await app.evaluate(({ clipboard }) => clipboard.readText()), secret);
    await page.getByRole('button', { name: 'I have copied it' }).click();
  });

  step(
    'a model request with that key goes through the gateway to the mock upstream; its row shows in the usage log',
    async () => {
      await admin.topup(5);
      await admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
      const copied = await app.evaluate(({ clipboard }) => clipboard.readText());
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: copied, maxRetries: 0 });
      const reply = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hello from the packaged app test' }],
      });
      assert.match(reply.choices[0]!.message.content ?? '', /mock reply/);
      const [entry] = await admin.logs({ key: 'packaged' });
      assert.ok(entry && entry.status === 200 && entry.costMicro > 0, 'logged and billed');
      await gotoPage(page, '4', 'Usage log');
      await page.locator(`[data-request-id="${entry.requestId}"]`).waitFor({ timeout: SLOW });
    },
  );

  step('quits cleanly: the gateway closes, nothing is left running, the ledger is whole', async () => {
    const proc = app.process();
    const exited = new Promise<number | null>((r) =>
      proc.exitCode !== null ? r(proc.exitCode) : proc.once('exit', (code) => r(code)),
    );
    // The inspector connection may close before the answer when the app is quick to go.
    await app.evaluate(({ app: electronApp }) => electronApp.quit()).catch(() => undefined);
    assert.equal(await exited, 0, 'the app exited with 0');
    await waitFor(() => !processAlive(gatewayPid), 'the gateway process to be gone', SLOW);
    assert.equal(readRuntime(dataDir), undefined, 'the gateway removed its runtime file: it closed, not killed');
    assert.match(appLogText(dataDir), /quitting/);
    assert.doesNotMatch(appLogText(dataDir), /killing it/, 'the gateway stopped within its grace');
    assert.ok(!appLogText(dataDir).includes(secret.slice(3)), 'the key is not in the app log');
    const reopened = await startGateway(dataDir);
    try {
      const rows = await reopened.admin.logs({ key: 'packaged' });
      assert.equal(rows.length, 1);
      assert.equal((await reopened.admin.doctor()).ok, true);
    } finally {
      // The data dir is removed in after(); only the gateway is closed here.
      await reopened.running.close();
      if (existsSync(reopened.home)) rmSync(reopened.home, { recursive: true, force: true });
    }
  });
});

/** The console window: the one on the gateway's origin, past the login redirect. */
async function waitForConsole(app: ElectronApplication, origin: string): Promise<Page> {
  const deadline = Date.now() + SLOW;
  while (Date.now() < deadline) {
    const page = app.windows().find((w) => w.url().startsWith(`${origin}/`) && !w.url().includes('/login'));
    if (page) return page;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `no console window on ${origin}; windows: ${app
      .windows()
      .map((w) => w.url())
      .join(', ')}`,
  );
}
