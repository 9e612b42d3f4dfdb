import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_SETTINGS, loadSettings, normalise, saveSettings, SETTINGS_FILE } from '../../main/settings.js';

test("defaults: every notification on; nothing else is the app's own (port and threshold are the gateway's)", () => {
  assert.deepEqual(normalise(undefined), DEFAULT_SETTINGS);
  assert.deepEqual(DEFAULT_SETTINGS, {
    notifications: { lowBalance: true, keyQuota: true, lineDown: true },
    window: null,
  });
});

test('malformed fields fall back one by one', () => {
  assert.deepEqual(normalise({ notifications: { lowBalance: false, keyQuota: 'yes' } }), {
    notifications: { ...DEFAULT_SETTINGS.notifications, lowBalance: false },
    window: null,
  });
  assert.equal(normalise({ window: { width: 900, height: 600, x: 1.5, y: 0 } }).window, null, 'a broken place is none');
  assert.deepEqual(normalise({ window: { width: 900, height: 600, x: 10, y: 0 } }).window, {
    width: 900,
    height: 600,
    x: 10,
    y: 0,
    maximized: false,
  });
});

test("an older desktop.json's port and threshold are read to be carried over, and the next save leaves them out", () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-settings-'));
  try {
    const path = join(dir, SETTINGS_FILE);
    writeFileSync(path, JSON.stringify({ notifications: { keyQuota: false }, port: 5151, lowBalanceMicro: 2_000_000 }));
    const loaded = loadSettings(dir);
    assert.deepEqual(loaded.carried, { port: 5151, lowBalanceMicro: 2_000_000 });
    assert.equal(loaded.settings.notifications.keyQuota, false);
    saveSettings(dir, loaded.settings);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), {
      notifications: { lowBalance: true, keyQuota: false, lineDown: true },
      window: null,
    });
    assert.equal(loadSettings(dir).carried, undefined);
    // Malformed old values are not carried (the field's presence still clears them at the next save).
    writeFileSync(path, JSON.stringify({ port: 70000, lowBalanceMicro: 2.5 }));
    assert.deepEqual(loadSettings(dir).carried, {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('settings round-trip through desktop.json (0600); a broken file is kept aside with a warning', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-settings-'));
  try {
    assert.deepEqual(loadSettings(dir), { settings: DEFAULT_SETTINGS });
    const changed = {
      notifications: { ...DEFAULT_SETTINGS.notifications, lineDown: false },
      window: { width: 1000, height: 700, x: -1200, y: 40, maximized: true },
    };
    saveSettings(dir, changed);
    assert.deepEqual(loadSettings(dir).settings, changed);
    if (process.platform !== 'win32') assert.equal(statSync(join(dir, SETTINGS_FILE)).mode & 0o777, 0o600);
    writeFileSync(join(dir, SETTINGS_FILE), '{ nope');
    const got = loadSettings(dir);
    assert.deepEqual(got.settings, DEFAULT_SETTINGS);
    assert.match(got.warning!, /not valid JSON/);
    assert.equal(readFileSync(join(dir, SETTINGS_FILE + '.bad'), 'utf8'), '{ nope');
    assert.equal(existsSync(join(dir, SETTINGS_FILE)), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
