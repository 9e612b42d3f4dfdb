import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTrayMenu, planWindowItems, toolItems, type MenuItem } from '../../main/tray-menu.js';
import type { ToolConnection } from '../../main/state.js';
import { trayIconFile, trayIconState, trayTooltip } from '../../main/tray-icon.js';
import { gatewaySettings, key, line, NOW, runningState, settings, wallet } from './fixtures.js';

function labels(items: MenuItem[]): string[] {
  return items.map((i) => (i.type === 'separator' ? '---' : i.label));
}

function find(items: MenuItem[], label: string): MenuItem {
  const hit = items.find((i) => i.type !== 'separator' && i.label.startsWith(label));
  assert.ok(hit, `no item "${label}" in ${JSON.stringify(labels(items))}`);
  return hit;
}

test('the menu of a running gateway: status, one checkbox per key, disable all, pause, copy, console, quit', () => {
  const menu = buildTrayMenu({
    state: runningState({ spentTodayMicro: 1_230_000 }),
    settings: settings(),
    launchAtLogin: false,
    now: NOW,
  });
  assert.deepEqual(labels(menu).slice(0, 2), ['Tollgate on port 4141', 'Today $1.23 · Balance $5.00']);
  const laptop = find(menu, 'laptop');
  assert.deepEqual(laptop, {
    type: 'checkbox',
    label: 'laptop',
    checked: true,
    action: { kind: 'set-key', name: 'laptop', enabled: false },
    enabled: true,
  });
  const ci = find(menu, 'ci');
  assert.equal(ci.type === 'checkbox' && ci.checked, false);
  assert.deepEqual(ci.type === 'checkbox' && ci.action, { kind: 'set-key', name: 'ci', enabled: true });
  assert.deepEqual(find(menu, 'Disable all keys'), {
    type: 'action',
    label: 'Disable all keys',
    action: { kind: 'disable-all-keys' },
    enabled: true,
  });
  assert.deepEqual(find(menu, 'Pause gateway'), {
    type: 'action',
    label: 'Pause gateway',
    action: { kind: 'set-paused', paused: true },
    enabled: true,
  });
  const copy = find(menu, 'Copy base URL');
  assert.ok(copy.type === 'submenu');
  assert.deepEqual(
    copy.items.map((i) => (i.type === 'action' && i.action.kind === 'copy' ? i.action.text : null)),
    ['http://127.0.0.1:4141/v1', 'http://127.0.0.1:4141', 'http://127.0.0.1:4141'],
  );
  find(menu, 'Open console');
  assert.equal(labels(menu).at(-1), 'Quit Tollgate');
});

test('keys show quota use and expiry; deleted keys are not listed; disable-all is off when nothing is enabled', () => {
  const keys = [
    key('a', { state: 'disabled', quotaMicro: 2_000_000, usedMicro: 500_000 }),
    key('b', { state: 'disabled', expiresAt: '2020-01-01T00:00:00Z' }),
    key('c', { state: 'deleted' }),
  ];
  const menu = buildTrayMenu({ state: runningState({ keys }), settings: settings(), launchAtLogin: false, now: NOW });
  find(menu, 'a ($0.50 of $2.00)');
  find(menu, 'b (expired)');
  assert.ok(!labels(menu).some((l) => l.startsWith('c')));
  const all = find(menu, 'Disable all keys');
  assert.equal(all.type === 'action' && all.enabled, false);
});

test('paused, not pausable, attached and no keys', () => {
  const paused = buildTrayMenu({
    state: runningState({ paused: true }),
    settings: settings(),
    launchAtLogin: false,
    now: NOW,
  });
  assert.equal(labels(paused)[0], 'Tollgate on port 4141 (paused)');
  assert.deepEqual(find(paused, 'Resume gateway'), {
    type: 'action',
    label: 'Resume gateway',
    action: { kind: 'set-paused', paused: false },
    enabled: true,
  });
  const old = buildTrayMenu({
    state: runningState({
      paused: null,
      keys: [],
      phase: { kind: 'running', url: 'http://127.0.0.1:4141', owned: false },
    }),
    settings: settings(),
    launchAtLogin: false,
    now: NOW,
  });
  assert.equal(labels(old)[0], 'Tollgate on port 4141 (attached to tollgate serve)');
  const pause = find(old, 'Pause gateway');
  assert.equal(pause.type === 'action' && pause.enabled, false);
  find(old, 'No keys yet');
});

test('a gateway that is restarting shows why and when, and offers no key items', () => {
  const state = runningState({
    phase: { kind: 'restarting', attempt: 3, inMs: 3_500, reason: 'port 4141 is in use by another program' },
  });
  const menu = buildTrayMenu({ state, settings: settings(), launchAtLogin: false, now: NOW });
  assert.deepEqual(labels(menu).slice(0, 2), [
    'Gateway stopped: port 4141 is in use by another program',
    'Restarting in 4 s (attempt 3)',
  ]);
  assert.ok(!labels(menu).includes('laptop'));
  assert.ok(!labels(menu).includes('Open console'));
  assert.deepEqual(find(menu, 'Try again now'), {
    type: 'action',
    label: 'Try again now',
    action: { kind: 'retry-gateway' },
    enabled: true,
  });
  assert.equal(labels(menu).at(-1), 'Quit Tollgate');
});

test('a gateway the supervisor gave up on says why, offers to try again and points to the log', () => {
  const state = runningState({
    phase: { kind: 'failed', failures: 6, reason: 'port 4141 is in use by another program' },
  });
  const menu = buildTrayMenu({ state, settings: settings(), launchAtLogin: false, now: NOW });
  assert.deepEqual(labels(menu).slice(0, 2), [
    'Gateway cannot start: port 4141 is in use by another program',
    'Stopped trying after 6 failures in a row',
  ]);
  find(menu, 'Try again now');
  assert.deepEqual(find(menu, 'Open log folder'), {
    type: 'action',
    label: 'Open log folder',
    action: { kind: 'open-log-folder' },
    enabled: true,
  });
  assert.equal(trayIconState(state), 'error');
  const running = buildTrayMenu({ state: runningState(), settings: settings(), launchAtLogin: false, now: NOW });
  assert.ok(!labels(running).includes('Try again now'), 'nothing to retry while it runs');
  find(running, 'Open log folder');
});

test('notification switches, launch at login and the update item reflect their state', () => {
  const s = settings({ notifications: { lowBalance: false, keyQuota: true, lineDown: true } });
  const menu = buildTrayMenu({ state: runningState(), settings: s, launchAtLogin: true, now: NOW });
  const notes = find(menu, 'Notifications');
  assert.ok(notes.type === 'submenu');
  assert.deepEqual(notes.items[0], {
    type: 'checkbox',
    label: 'Low balance',
    checked: false,
    action: { kind: 'set-notification', which: 'lowBalance', on: true },
    enabled: true,
  });
  assert.deepEqual(find(menu, 'Launch at login'), {
    type: 'checkbox',
    label: 'Launch at login',
    checked: true,
    action: { kind: 'set-launch-at-login', on: false },
    enabled: true,
  });
  find(menu, 'Check for updates');
  const ready = buildTrayMenu({
    state: runningState({ update: { version: '0.2.0', downloaded: true } }),
    settings: s,
    launchAtLogin: false,
    now: NOW,
  });
  assert.deepEqual(find(ready, 'Restart to install'), {
    type: 'action',
    label: 'Restart to install Tollgate 0.2.0',
    action: { kind: 'install-update' },
    enabled: true,
  });
  const available = buildTrayMenu({
    state: runningState({ update: { version: '0.2.0', downloaded: false } }),
    settings: s,
    launchAtLogin: false,
    now: NOW,
  });
  find(available, 'Download Tollgate 0.2.0');
});

test("tray icon: error over paused over low balance (the gateway's threshold) over running", () => {
  assert.equal(trayIconState(runningState()), 'running');
  assert.equal(trayIconState(runningState({ wallet: wallet(999_999) })), 'low');
  assert.equal(
    trayIconState(runningState({ wallet: wallet(999_999), settings: gatewaySettings({ lowBalanceMicro: 500_000 }) })),
    'running',
    'below $1 but above the threshold set',
  );
  assert.equal(
    trayIconState(runningState({ wallet: wallet(0), settings: gatewaySettings({ lowBalanceMicro: null }) })),
    'running',
    'the warning switched off',
  );
  assert.equal(trayIconState(runningState({ wallet: wallet(1), paused: true })), 'paused');
  assert.equal(trayIconState(runningState({ phase: { kind: 'starting' } })), 'paused');
  assert.equal(
    trayIconState(runningState({ phase: { kind: 'restarting', attempt: 1, inMs: 1, reason: 'x' }, paused: true })),
    'error',
  );
  assert.equal(trayIconFile('low', 'darwin'), 'lowTemplate.png');
  assert.equal(trayIconFile('low', 'win32'), 'low.png');
  assert.match(trayTooltip(runningState({ wallet: wallet(10) })), /Low balance: \$0\.00\b/);
});

function tool(id: string, name: string, over: Partial<ToolConnection> = {}): ToolConnection {
  return {
    tool: id,
    name,
    aliases: [],
    command: id,
    smallModelSetting: false,
    connected: false,
    keyName: null,
    keyLast4: null,
    model: null,
    smallModel: null,
    connectedAt: null,
    baseUrl: null,
    pointsAtTollgate: false,
    files: [],
    matches: false,
    problems: [],
    suggested: null,
    ...over,
  };
}

test('connected coding tools: each with its key, marked when the wiring no longer matches; each opens the Connect page', () => {
  const open = { kind: 'open-console', page: '/connect' };
  const tools = [
    tool('claude-code', 'Claude Code', {
      connected: true,
      keyName: 'claude-code',
      matches: true,
      pointsAtTollgate: true,
    }),
    tool('codex', 'Codex CLI', {
      connected: true,
      keyName: 'codex',
      matches: false,
      problems: ['~/.codex/config.toml was changed by hand.'],
    }),
    tool('gemini-cli', 'Gemini CLI'),
  ];
  assert.deepEqual(toolItems(tools), [
    { type: 'label', label: 'Coding tools' },
    { type: 'action', label: 'Claude Code (key claude-code)', action: open, enabled: true },
    { type: 'action', label: 'Codex CLI (key codex): wiring changed, check it', action: open, enabled: true },
    { type: 'action', label: 'Connect another tool…', action: open, enabled: true },
  ]);
  const all = tools.map((t) => ({ ...t, connected: true, keyName: t.tool, matches: true }));
  assert.deepEqual(labels(toolItems(all)), [
    'Coding tools',
    'Claude Code (key claude-code)',
    'Codex CLI (key codex)',
    'Gemini CLI (key gemini-cli)',
  ]);
  assert.ok(!labels(toolItems(all)).some((l) => l.startsWith('Connect')), 'nothing left to connect');
  assert.deepEqual(labels(toolItems(tools.map((t) => ({ ...t, connected: false })))), [
    'No coding tools connected',
    'Connect a coding tool…',
  ]);
  assert.deepEqual(toolItems(null), [], 'nothing until the gateway has answered');

  const menu = buildTrayMenu({ state: runningState({ tools }), settings: settings(), launchAtLogin: false, now: NOW });
  const at = labels(menu).indexOf('Coding tools');
  assert.ok(
    at > labels(menu).indexOf('Disable all keys') && at < labels(menu).indexOf('Pause gateway'),
    labels(menu).join(' | '),
  );
  assert.ok(
    !labels(buildTrayMenu({ state: runningState(), settings: settings(), launchAtLogin: false, now: NOW })).includes(
      'Coding tools',
    ),
  );
});

test("plan windows: each line's utilisation and reset, a warning named; nothing for lines without them", () => {
  const claude = {
    ...line('claude-max'),
    planWindows: {
      seenAt: new Date(NOW).toISOString(),
      headers: {},
      windows: [
        { name: '5h', utilization: 0.42, resetsAt: new Date(NOW + 125 * 60_000).toISOString(), status: 'allowed' },
        {
          name: '7d',
          utilization: 0.9,
          resetsAt: new Date(NOW + 3 * 86_400_000).toISOString(),
          status: 'allowed_warning',
        },
      ],
    },
  };
  assert.deepEqual(planWindowItems([line('plain'), claude], NOW), [
    { type: 'label', label: 'Plan windows' },
    {
      type: 'label',
      label: 'claude-max: 5h 42%, resets in 2 h 5 min · 7d 90% (allowed warning), resets in 3 d',
    },
  ]);
  assert.deepEqual(planWindowItems([line('plain')], NOW), []);
});
