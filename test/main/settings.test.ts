import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_SETTINGS, loadSettings, normalise, saveSettings, SETTINGS_FILE } from '../../main/settings.js';

test('defaults: every notification on, $1 low-balance threshold, port 4141', () => {
  assert.deepEqual(normalise(undefined), DEFAULT_SETTINGS);
  assert.deepEqual(DEFAULT_SETTINGS, {
    notifications: { lowBalance: true, keyQuota: true, lineDown: true },
    lowBalanceMicro: 1_000_000,
    port: 4141,
  });
});

test('malformed fields fall back one by one', () => {
  assert.deepEqual(
    normalise({ port: 70000, lowBalanceMicro: 2.5, notifications: { lowBalance: false, keyQuota: 'yes' } }),
    {
      ...DEFAULT_SETTINGS,
      notifications: { ...DEFAULT_SETTINGS.notifications, lowBalance: false },
    },
  );
  assert.equal(normalise({ port: 0 }).port, 0);
});

test('settings round-trip through desktop.json (0600); a broken file is kept aside with a warning', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-settings-'));
  try {
    assert.deepEqual(loadSettings(dir), { settings: DEFAULT_SETTINGS });
    const changed = { ...DEFAULT_SETTINGS, port: 5151 };
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
