import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Controller, type Shell } from '../../main/controller.js';
import type { AdminClient, KeyView } from '../../gateway/contract/admin/index.js';
import { describeStartError, gatewayArgs, parseGatewayArgs } from '../../gateway/desktop.js';
import { SETTINGS_FILE } from '../../main/settings.js';
import { key, runningState, settings, wallet } from './fixtures.js';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-controller-'));
  const log: string[] = [];
  const shell: Shell = {
    render: () => void log.push('render'),
    notify: (t, b) => void log.push(`notify ${t}: ${b}`),
    copyText: (t) => void log.push(`copy ${t}`),
    openConsole: () => void log.push('console'),
    getLaunchAtLogin: () => false,
    setLaunchAtLogin: (on) => (log.push(`login ${on}`), on),
    checkUpdates: () => void log.push('check'),
    downloadUpdate: () => void log.push('download'),
    installUpdate: () => void log.push('install'),
    retryGateway: () => void log.push('retry'),
    openLogFolder: () => void log.push('logs'),
    quit: () => void log.push('quit'),
    log: () => undefined,
  };
  const c = new Controller(dir, settings(), shell);
  c.state = runningState({ keys: [key('a'), key('b'), key('c', { state: 'disabled' })] });
  const calls: string[] = [];
  // A stand-in for the typed client: the routes the tray's actions call.
  const routes: Record<string, (name: string) => unknown> = {
    enableKey: (name) => ({ key: keyAfter(name, true) }),
    disableKey: (name) => ({ key: keyAfter(name, false) }),
    pauseGateway: () => (calls.push('paused=true'), status(true)),
    resumeGateway: () => (calls.push('paused=false'), status(false)),
  };
  const keyAfter = (name: string, enabled: boolean): KeyView => {
    calls.push(`${name}=${enabled}`);
    if (name === 'boom') throw new Error('The key "boom" does not exist.');
    return key(name, { state: enabled ? 'enabled' : 'disabled' });
  };
  const status = (paused: boolean) => ({ version: '1', dataDir: dir, url: 'http://127.0.0.1:4141', paused });
  c.api = {
    call: async (route: string, input?: { params?: { name: string } }) => routes[route]!(input?.params?.name ?? ''),
  } as unknown as AdminClient;
  return { c, log, calls, cleanup: () => rmSync(dir, { recursive: true, force: true }), dir };
}

test('"Disable all keys" disables every enabled key and the state follows', async () => {
  const { c, calls, cleanup } = setup();
  try {
    await c.run({ kind: 'disable-all-keys' });
    assert.deepEqual(calls, ['a=false', 'b=false']);
    assert.deepEqual(
      c.state.keys.map((k) => k.state),
      ['disabled', 'disabled', 'disabled'],
    );
  } finally {
    cleanup();
  }
});

test('pause, copy, console, updates and quit go where they should', async () => {
  const { c, log, calls, cleanup } = setup();
  try {
    await c.run({ kind: 'set-paused', paused: true });
    assert.deepEqual(calls, ['paused=true']);
    assert.equal(c.state.paused, true);
    for (const kind of [
      'open-console',
      'check-updates',
      'download-update',
      'install-update',
      'retry-gateway',
      'open-log-folder',
      'quit',
    ] as const)
      await c.run({ kind });
    await c.run({ kind: 'copy', text: 'http://127.0.0.1:4141/v1' });
    await c.run({ kind: 'set-launch-at-login', on: true });
    assert.deepEqual(
      log.filter((l) => l !== 'render'),
      [
        'console',
        'check',
        'download',
        'install',
        'retry',
        'logs',
        'quit',
        'copy http://127.0.0.1:4141/v1',
        'login true',
      ],
    );
  } finally {
    cleanup();
  }
});

test('a notification switch is saved to desktop.json', async () => {
  const { c, dir, cleanup } = setup();
  try {
    await c.run({ kind: 'set-notification', which: 'lineDown', on: false });
    assert.equal(c.settings.notifications.lineDown, false);
    assert.equal(JSON.parse(readFileSync(join(dir, SETTINGS_FILE), 'utf8')).notifications.lineDown, false);
  } finally {
    cleanup();
  }
});

test('a failing action becomes a notification; no gateway says so', async () => {
  const { c, log, cleanup } = setup();
  try {
    await c.run({ kind: 'set-key', name: 'boom', enabled: false });
    assert.ok(log.includes('notify Tollgate: The key "boom" does not exist.'));
    c.api = null;
    await c.run({ kind: 'set-key', name: 'a', enabled: false });
    assert.ok(log.includes('notify Tollgate: The gateway is not running.'));
  } finally {
    cleanup();
  }
});

test('state changes notify through the shell (low balance)', () => {
  const { c, log, cleanup } = setup();
  try {
    c.dispatch({ type: 'wallet', wallet: wallet(10) });
    assert.ok(log.some((l) => l.startsWith('notify Tollgate: low balance')));
  } finally {
    cleanup();
  }
});

test('gateway process arguments round-trip; start errors read as words', () => {
  assert.deepEqual(parseGatewayArgs(['node', 'child.js', ...gatewayArgs('/data dir', 4141)]), {
    dataDir: '/data dir',
    port: 4141,
  });
  assert.throws(() => parseGatewayArgs(['--port', 'x']), /bad gateway arguments/);
  assert.equal(
    describeStartError(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), 4141),
    'port 4141 is in use by another program',
  );
  assert.equal(describeStartError(new Error('config.json is corrupt'), 4141), 'config.json is corrupt');
  assert.match(
    describeStartError(
      new Error(
        "The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 140.",
      ),
      4141,
    ),
    /another runtime \(from source, run "npm start"/,
  );
});
