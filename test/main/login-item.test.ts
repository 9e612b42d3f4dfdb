import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { AUTOSTART_FILE, autostartEntry, LoginItem, quoteExec } from '../../main/login-item.js';

test('on Linux, launch at login is an XDG autostart entry, absent by default', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'tollgate-autostart-')), 'autostart');
  try {
    const item = new LoginItem({
      platform: 'linux',
      getOs: () => assert.fail('no OS API on Linux'),
      setOs: () => assert.fail('no OS API on Linux'),
      autostartDir: dir,
      command: ['/opt/Tollgate/tollgate'],
    });
    assert.equal(item.get(), false, 'off by default');
    assert.equal(item.set(true), true);
    const text = readFileSync(join(dir, AUTOSTART_FILE), 'utf8');
    assert.match(text, /^\[Desktop Entry\]\n/);
    assert.match(text, /^Exec="\/opt\/Tollgate\/tollgate" --hidden$/m);
    assert.equal(item.set(false), false);
    assert.equal(existsSync(join(dir, AUTOSTART_FILE)), false);
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

test('on macOS and Windows the OS login item is used', () => {
  let on = false;
  const item = new LoginItem({
    platform: 'darwin',
    getOs: () => on,
    setOs: (v) => (on = v),
    autostartDir: '/nonexistent',
    command: ['x'],
  });
  assert.equal(item.get(), false);
  assert.equal(item.set(true), true);
  assert.equal(on, true);
});

test('Exec paths are quoted and escaped as the desktop entry spec says', () => {
  assert.equal(quoteExec('/home/a b/Tollgate.AppImage'), '"/home/a b/Tollgate.AppImage"');
  assert.equal(quoteExec('/x/"$`\\'), '"/x/\\"\\$\\`\\\\"');
  assert.match(
    autostartEntry(['/usr/bin/electron', '/src/tollgate']),
    /^Exec="\/usr\/bin\/electron" "\/src\/tollgate" --hidden$/m,
  );
});
