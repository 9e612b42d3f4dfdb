import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { CHECK_EVERY_MS, FIRST_CHECK_MS, installModeOf, Updates, type Updater } from '../../main/updates.js';
import type { UpdateInfo } from '../../main/state.js';

class FakeUpdater extends EventEmitter implements Updater {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  checks = 0;
  downloads = 0;
  installs: unknown[][] = [];
  async checkForUpdates() {
    this.checks++;
  }
  async downloadUpdate() {
    this.downloads++;
  }
  quitAndInstall(...args: unknown[]) {
    this.installs.push(args);
  }
}

function setup() {
  const u = new FakeUpdater();
  const reports: (UpdateInfo | null)[] = [];
  const notes: string[] = [];
  const timers: [string, number, () => void][] = [];
  const order: string[] = [];
  const updates = new Updates(u, {
    report: (x) => reports.push(x),
    notify: (t) => notes.push(t),
    log: () => undefined,
    handOver: async (install: () => void) => {
      order.push('gateway stopped');
      install();
    },
    failed: (m: string) => void order.push(`failed: ${m}`),
    setTimer: (fn, ms) => (timers.push(['once', ms, fn]), () => undefined),
    setRepeat: (fn, ms) => (timers.push(['every', ms, fn]), () => undefined),
  });
  return { u, updates, reports, notes, timers, order };
}

test('nothing downloads or installs without the user: auto download and install-on-quit are off', () => {
  const { u } = setup();
  assert.equal(u.autoDownload, false);
  assert.equal(u.autoInstallOnAppQuit, false);
});

test('checks soon after start and then daily', () => {
  const { u, updates, timers } = setup();
  updates.start();
  assert.deepEqual(
    timers.map(([k, ms]) => [k, ms]),
    [
      ['once', FIRST_CHECK_MS],
      ['every', CHECK_EVERY_MS],
    ],
  );
  assert.equal(CHECK_EVERY_MS, 86_400_000);
  for (const [, , fn] of timers) fn();
  assert.equal(u.checks, 2);
});

test('available → downloaded on request → installed on request, after the gateway stopped', async () => {
  const { u, updates, reports, notes, order } = setup();
  await updates.install();
  assert.equal(u.installs.length, 0, 'nothing to install yet');
  u.emit('update-available', { version: '0.2.0' });
  assert.deepEqual(reports.at(-1), { version: '0.2.0', downloaded: false });
  u.emit('update-available', { version: '0.2.0' });
  assert.equal(notes.length, 1, 'the same version is announced once');
  await updates.download();
  assert.equal(u.downloads, 1);
  u.emit('update-downloaded', { version: '0.2.0' });
  assert.deepEqual(reports.at(-1), { version: '0.2.0', downloaded: true });
  const install = updates.install();
  await install;
  assert.deepEqual(order, ['gateway stopped']);
  assert.deepEqual(u.installs, [[false, true]]);
});

test('an updater error is logged and ends an install under way as failed (the gateway runs again)', () => {
  const { u, order } = setup();
  u.emit('error', new Error('Code signature at URL did not pass validation'));
  assert.deepEqual(order, ['failed: Code signature at URL did not pass validation']);
});

test('an ad-hoc signed macOS build offers updates on the release page instead of installing them', async () => {
  const u = new FakeUpdater();
  const opened: string[] = [];
  const updates = new Updates(u, {
    report: () => undefined,
    notify: () => undefined,
    log: () => undefined,
    handOver: async () => assert.fail('nothing is installed in place'),
    failed: () => undefined,
    setTimer: () => () => undefined,
    setRepeat: () => () => undefined,
    mode: { kind: 'download-page', releasesUrl: 'https://github.com/acme/tollgate/releases' },
    openExternal: async (url) => void opened.push(url),
  });
  await updates.download();
  assert.deepEqual(opened, [], 'nothing to download before an update is known');
  u.emit('update-available', { version: '0.2.0' });
  await updates.download();
  assert.deepEqual(opened, ['https://github.com/acme/tollgate/releases/tag/v0.2.0']);
  assert.equal(u.downloads, 0);
});

test('the install mode is read from the packaged package.json; anything unexpected installs in place', () => {
  const url = 'https://github.com/acme/tollgate/releases';
  assert.deepEqual(installModeOf({ tollgate: { updates: 'download-page', releasesUrl: url } }), {
    kind: 'download-page',
    releasesUrl: url,
  });
  for (const pkg of [null, {}, { tollgate: {} }, { tollgate: { updates: 'download-page', releasesUrl: 'http://x' } }])
    assert.deepEqual(installModeOf(pkg), { kind: 'in-place' }, JSON.stringify(pkg));
});
