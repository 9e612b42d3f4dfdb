import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Controller, type Shell } from '../../main/controller.js';
import type { AdminClient, KeyView } from '../../gateway/contract/admin/index.js';
import {
  appBindHost,
  describeStartError,
  gatewayArgs,
  parseGatewayArgs,
  settingsToCarry,
} from '../../gateway/desktop.js';
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

test("gateway process arguments round-trip, with an older desktop.json's settings to carry; start errors read as words", () => {
  assert.deepEqual(parseGatewayArgs(['node', 'child.js', ...gatewayArgs('/data dir')]), {
    dataDir: '/data dir',
    carried: {},
  });
  assert.deepEqual(
    parseGatewayArgs(['node', 'child.js', ...gatewayArgs('/d', { port: 5151, lowBalanceMicro: 2_000_000 })]),
    { dataDir: '/d', carried: { port: 5151, lowBalanceMicro: 2_000_000 } },
  );
  assert.throws(() => parseGatewayArgs(['--port', 'x']), /bad gateway arguments/);
  assert.throws(() => parseGatewayArgs(['--data-dir', '/d', '--carry-port', '70000']), /bad gateway arguments/);
  assert.equal(
    describeStartError(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: 4141 })),
    'port 4141 is in use by another program (Settings in the console, or config.json, move it)',
  );
  assert.equal(describeStartError(new Error('config.json is corrupt')), 'config.json is corrupt');
  assert.match(
    describeStartError(
      new Error(
        "The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 140.",
      ),
    ),
    /another runtime \(from source, run "npm start"/,
  );
});

test("an older desktop.json's port and threshold become the gateway's settings once, unless the config sets them", () => {
  assert.deepEqual(settingsToCarry(undefined, { port: 5151, lowBalanceMicro: 2_000_000 }), {
    change: { port: 5151, lowBalanceMicro: 2_000_000 },
    notes: [
      "desktop.json's port 5151 is now the gateway's setting",
      "desktop.json's lowBalanceMicro 2000000 is now the gateway's setting",
    ],
  });
  assert.deepEqual(
    settingsToCarry({}, { port: 4141, lowBalanceMicro: 1_000_000 }),
    { change: {}, notes: [] },
    'the defaults are not written',
  );
  const kept = settingsToCarry({ port: 6000, lowBalanceMicro: 2_000_000 }, { port: 5151, lowBalanceMicro: 2_000_000 });
  assert.deepEqual(kept.change, {}, "the gateway's own settings win");
  assert.deepEqual(kept.notes, ["desktop.json's port 5151 is not carried over: the gateway's settings say 6000"]);
});

test("the app's gateway binds loopback or a wildcard as set, and loopback instead of one other address", () => {
  for (const host of ['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::']) assert.deepEqual(appBindHost(host), { host });
  const lan = appBindHost('192.168.1.20');
  assert.equal(lan.host, '127.0.0.1');
  assert.match(lan.note!, /192\.168\.1\.20 is not reachable from this machine's loopback.*0\.0\.0\.0/);
});
