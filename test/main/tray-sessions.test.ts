import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AdminClient } from '../../gateway/contract/admin/index.js';
import { Controller, type Shell } from '../../main/controller.js';
import { buildTrayMenu, type MenuItem } from '../../main/tray-menu.js';
import { ACTIVE_MS, sessionItems, sessionPage, traySessions } from '../../main/tray-sessions.js';
import { NOW, runningState, session, settings } from './fixtures.js';

const paused = (id: string, capMicro: number | null) =>
  session(id, {
    state: 'paused',
    capMicro,
    costMicro: 2_010_000,
    lastTs: NOW - 3_600_000,
    pause: {
      guard: 'session-cap',
      reason: 'its session cap of $2.00 is reached ($2.01 spent).',
      call: null,
      at: NOW - 3_600_000,
    },
  });

const labels = (items: MenuItem[]) => items.map((i) => (i.type === 'separator' ? '---' : i.label));

test('active sessions with their cost so far; paused ones marked and listed first; idle and stale ones left out', () => {
  const items = sessionItems(
    [
      session('f6dbf092-ffeb-4e61-8404-98c51e033fc8'),
      session('old-active', { lastTs: NOW - ACTIVE_MS - 1 }),
      session('gone-idle', { state: 'idle' }),
      paused('overnight', 2_000_000),
    ],
    NOW,
  );
  assert.deepEqual(labels(items), [
    'Agent sessions (1 paused)',
    'Paused by the session cap: overnight (Claude Code, tollgate): $2.01 of $2.00',
    'f6dbf092-ffe… (Claude Code, tollgate): $0.41',
  ]);
  assert.deepEqual(items[2], {
    type: 'action',
    label: 'f6dbf092-ffe… (Claude Code, tollgate): $0.41',
    action: { kind: 'open-console', page: '/sessions/f6dbf092-ffeb-4e61-8404-98c51e033fc8' },
    enabled: true,
  });
  assert.deepEqual(sessionItems([session('idle', { state: 'idle' })], NOW), [], 'nothing to show, no heading');
});

test('a paused session offers Resume, Resume raising its cap (only with a cap), and its console page', () => {
  const [, capped] = sessionItems([paused('overnight', 2_000_000)], NOW);
  assert.ok(capped?.type === 'submenu');
  assert.deepEqual(capped.items, [
    { type: 'label', label: 'its session cap of $2.00 is reached ($2.01 spent).' },
    { type: 'action', label: 'Resume', action: { kind: 'resume-session', id: 'overnight' }, enabled: true },
    {
      type: 'action',
      label: 'Resume, raising its cap by $1.00',
      action: { kind: 'resume-session', id: 'overnight', addMicro: 1_000_000 },
      enabled: true,
    },
    {
      type: 'action',
      label: 'Resume, raising its cap by $5.00',
      action: { kind: 'resume-session', id: 'overnight', addMicro: 5_000_000 },
      enabled: true,
    },
    {
      type: 'action',
      label: 'Open in console',
      action: { kind: 'open-console', page: '/sessions/overnight' },
      enabled: true,
    },
  ]);
  const loop = paused('looping', null);
  loop.pause = { guard: 'loop', reason: 'x'.repeat(300), call: 'Read {}', at: NOW };
  const [, uncapped] = sessionItems([loop], NOW);
  assert.ok(uncapped?.type === 'submenu');
  assert.match(uncapped.label, /^Paused by the loop guard: looping/);
  assert.deepEqual(labels(uncapped.items).slice(1), ['Resume', 'Open in console'], 'no amount to add without a cap');
  assert.equal(labels(uncapped.items)[0]!.length, 120, 'a long reason is cut');
  assert.equal(sessionPage('a/b c'), '/sessions/a%2Fb%20c');
  assert.deepEqual(
    traySessions([session('a', { lastTs: NOW - 1 }), session('b', { lastTs: NOW - 2 })], NOW).map((s) => s.id),
    ['a', 'b'],
  );
});

test('the tray menu shows the sessions between the keys and the coding tools, only while the gateway runs', () => {
  const state = runningState({ sessions: [session('s1')] });
  const menu = labels(buildTrayMenu({ state, settings: settings(), launchAtLogin: false, now: NOW }));
  const at = menu.indexOf('Agent sessions');
  assert.ok(at > menu.indexOf('Disable all keys'), JSON.stringify(menu));
  assert.equal(menu[at - 1], '---');
  assert.equal(menu[at + 1], 's1 (Claude Code, tollgate): $0.41');
  const stopped = buildTrayMenu({
    state: { ...state, phase: { kind: 'stopped' } },
    settings: settings(),
    launchAtLogin: false,
    now: NOW,
  });
  assert.equal(labels(stopped).includes('Agent sessions'), false);
});

test('Resume in the tray calls the admin API and the session leaves the paused list; a failure is a notification', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tray-sessions-'));
  const notes: string[] = [];
  const shell = {
    render: () => undefined,
    notify: (t: string, b: string) => void notes.push(`${t}: ${b}`),
    log: () => undefined,
  } as unknown as Shell;
  try {
    const c = new Controller(dir, settings(), shell, NOW);
    c.state = runningState({ sessions: [paused('overnight', 2_000_000)] });
    const calls: unknown[] = [];
    c.api = {
      call: async (route: string, input: { params: { id: string }; body: { addMicro?: number } }) => {
        calls.push([route, input.params.id, input.body]);
        if (input.params.id === 'gone') throw new Error('No session "gone".');
        return { session: session(input.params.id, { capMicro: 3_000_000, lastTs: NOW }) };
      },
    } as unknown as AdminClient;
    await c.run({ kind: 'resume-session', id: 'overnight', addMicro: 1_000_000 });
    assert.deepEqual(calls, [['resumeSession', 'overnight', { addMicro: 1_000_000 }]]);
    assert.deepEqual(
      c.state.sessions.map((s) => [s.id, s.state, s.capMicro]),
      [['overnight', 'active', 3_000_000]],
    );
    await c.run({ kind: 'resume-session', id: 'gone' });
    assert.deepEqual(calls[1], ['resumeSession', 'gone', {}]);
    assert.deepEqual(notes, ['Tollgate: No session "gone".']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
