/**
 * The tray menu as data, built from the app state by one pure function (tray.ts turns it into an
 * Electron menu and each item's action into a call). Unit-tested in test/main/tray-menu.test.ts.
 */
import { usd } from '../gateway/contract/money.js';
import type { KeyView, LineView } from '../gateway/contract/admin/index.js';
import type { NoticeKind, DesktopSettings } from './settings.js';
import type { AppState, ToolConnection } from './state.js';
import { sessionItems } from './tray-sessions.js';

export type MenuAction =
  | { kind: 'set-key'; name: string; enabled: boolean }
  | { kind: 'disable-all-keys' }
  | { kind: 'set-paused'; paused: boolean }
  /** Unpause an agent session, raising its cap by `addMicro` when given. */
  | { kind: 'resume-session'; id: string; addMicro?: number }
  | { kind: 'copy'; text: string }
  /** `page`: a route of the console (its hash router), e.g. `/connect`; the start page when absent. */
  | { kind: 'open-console'; page?: string }
  | { kind: 'set-notification'; which: NoticeKind; on: boolean }
  | { kind: 'set-launch-at-login'; on: boolean }
  | { kind: 'download-update' }
  | { kind: 'install-update' }
  | { kind: 'check-updates' }
  /** Start the gateway again after the supervisor gave up on it. */
  | { kind: 'retry-gateway' }
  | { kind: 'open-log-folder' }
  | { kind: 'quit' };

export type MenuItem =
  | { type: 'separator' }
  | { type: 'label'; label: string }
  | { type: 'action'; label: string; action: MenuAction; enabled: boolean }
  | { type: 'checkbox'; label: string; checked: boolean; action: MenuAction; enabled: boolean }
  | { type: 'submenu'; label: string; items: MenuItem[] };

export interface MenuInput {
  state: AppState;
  settings: DesktopSettings;
  launchAtLogin: boolean;
  now: number;
}

const SEP: MenuItem = { type: 'separator' };

function portOf(url: string): string {
  try {
    return new URL(url).port || '80';
  } catch {
    return '?';
  }
}

/** The first lines: where the gateway is, today's spend and the balance; or why it is not running. */
export function statusLines(state: AppState): string[] {
  const p = state.phase;
  switch (p.kind) {
    case 'starting':
      return ['Tollgate: starting the gateway…'];
    case 'stopping':
      return ['Tollgate: stopping…'];
    case 'stopped':
      return ['Tollgate: gateway stopped'];
    case 'restarting':
      return [`Gateway stopped: ${p.reason}`, `Restarting in ${Math.ceil(p.inMs / 1000)} s (attempt ${p.attempt})`];
    case 'failed':
      return [`Gateway cannot start: ${p.reason}`, `Stopped trying after ${p.failures} failures in a row`];
    case 'running': {
      const head = `Tollgate on port ${portOf(p.url)}${state.paused ? ' (paused)' : ''}${p.owned ? '' : ' (attached to tollgate serve)'}`;
      const money = state.wallet
        ? `Today ${usd(state.spentTodayMicro)} · Balance ${usd(state.wallet.balanceMicro)}`
        : 'Loading wallet…';
      return [head, money];
    }
  }
}

function keyLabel(k: KeyView, now: number): string {
  const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
  const quota = k.quotaMicro === null ? '' : ` (${usd(k.usedMicro)} of ${usd(k.quotaMicro)})`;
  return `${k.name}${quota}${expired ? ' (expired)' : ''}`;
}

/** Base URLs as each client family expects them (README "Use it"). */
export function baseUrls(url: string): { label: string; text: string }[] {
  return [
    { label: `OpenAI SDKs, Codex: ${url}/v1`, text: `${url}/v1` },
    { label: `Anthropic SDK, Claude Code: ${url}`, text: url },
    { label: `Gemini SDK, Gemini CLI: ${url}`, text: url },
  ];
}

/** The console's page for connecting coding tools. */
export const CONNECT_PAGE = '/connect';

/**
 * The coding tools Tollgate connected, each with its key, marked when its files no longer match
 * what was written; each opens the console's Connect page. Nothing until the gateway has answered.
 */
export function toolItems(tools: ToolConnection[] | null): MenuItem[] {
  if (tools === null) return [];
  const open: MenuAction = { kind: 'open-console', page: CONNECT_PAGE };
  const connected = tools.filter((t) => t.connected);
  const items: MenuItem[] = [
    { type: 'label', label: connected.length === 0 ? 'No coding tools connected' : 'Coding tools' },
  ];
  for (const t of connected) {
    const key = t.keyName === null ? '' : ` (key ${t.keyName})`;
    items.push({
      type: 'action',
      label: `${t.name}${key}${t.matches ? '' : ': wiring changed, check it'}`,
      action: open,
      enabled: true,
    });
  }
  if (connected.length < tools.length)
    items.push({
      type: 'action',
      label: connected.length === 0 ? 'Connect a coding tool…' : 'Connect another tool…',
      action: open,
      enabled: true,
    });
  return items;
}

/** `in 2 h 5 min`, `in 3 d`: how long until a window resets. */
function resetsIn(iso: string | null, now: number): string {
  if (iso === null) return '';
  const min = Math.max(0, Math.round((Date.parse(iso) - now) / 60_000));
  if (Number.isNaN(min)) return '';
  if (min < 60) return `, resets in ${min} min`;
  if (min < 48 * 60) return `, resets in ${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
  return `, resets in ${Math.round(min / 1440)} d`;
}

/**
 * Each line's plan windows as its upstream last reported them (Anthropic's 5-hour and 7-day
 * windows, OpenAI's request and token limits): one label per line, the utilisation and when each
 * window resets. Nothing for lines whose upstream sent no such headers.
 */
export function planWindowItems(lines: readonly LineView[], now: number): MenuItem[] {
  const shown = lines.filter((l) => l.enabled && l.planWindows && l.planWindows.windows.length > 0);
  if (shown.length === 0) return [];
  const items: MenuItem[] = [{ type: 'label', label: 'Plan windows' }];
  for (const l of shown) {
    const parts = l.planWindows!.windows.map((w) => {
      const used = w.utilization === null ? '?' : `${Math.round(w.utilization * 100)}%`;
      const warn = w.status && w.status !== 'allowed' ? ` (${w.status.replace('_', ' ')})` : '';
      return `${w.name} ${used}${warn}${resetsIn(w.resetsAt, now)}`;
    });
    items.push({ type: 'label', label: `${l.name}: ${parts.join(' · ')}` });
  }
  return items;
}

const NOTICE_LABELS: Record<NoticeKind, string> = {
  lowBalance: 'Low balance',
  keyQuota: 'Key quota nearly used',
  lineDown: 'Line down',
};

export function buildTrayMenu({ state, settings, launchAtLogin, now }: MenuInput): MenuItem[] {
  const items: MenuItem[] = statusLines(state).map((label) => ({ type: 'label', label }));
  const running = state.phase.kind === 'running' ? state.phase : null;

  if (running) {
    const keys = state.keys.filter((k) => k.state !== 'deleted');
    items.push(SEP);
    if (keys.length === 0) items.push({ type: 'label', label: 'No keys yet: create one in the console' });
    else items.push({ type: 'label', label: 'Keys' });
    for (const k of keys) {
      const enabled = k.state === 'enabled';
      items.push({
        type: 'checkbox',
        label: keyLabel(k, now),
        checked: enabled,
        action: { kind: 'set-key', name: k.name, enabled: !enabled },
        enabled: true,
      });
    }
    items.push({
      type: 'action',
      label: 'Disable all keys',
      action: { kind: 'disable-all-keys' },
      enabled: keys.some((k) => k.state === 'enabled'),
    });
    const sessions = sessionItems(state.sessions, now);
    if (sessions.length > 0) items.push(SEP, ...sessions);
    const tools = toolItems(state.tools);
    if (tools.length > 0) items.push(SEP, ...tools);
    const windows = planWindowItems(state.lines, now);
    if (windows.length > 0) items.push(SEP, ...windows);
    items.push(SEP);
    if (state.paused === null)
      items.push({
        type: 'action',
        label: 'Pause gateway',
        action: { kind: 'set-paused', paused: true },
        enabled: false,
      });
    else if (state.paused)
      items.push({
        type: 'action',
        label: 'Resume gateway',
        action: { kind: 'set-paused', paused: false },
        enabled: true,
      });
    else
      items.push({
        type: 'action',
        label: 'Pause gateway',
        action: { kind: 'set-paused', paused: true },
        enabled: true,
      });
    items.push({
      type: 'submenu',
      label: 'Copy base URL',
      items: baseUrls(running.url).map((b) => ({
        type: 'action',
        label: b.label,
        action: { kind: 'copy', text: b.text },
        enabled: true,
      })),
    });
    items.push({ type: 'action', label: 'Open console', action: { kind: 'open-console' }, enabled: true });
  }
  if (state.phase.kind === 'failed' || state.phase.kind === 'restarting')
    items.push(SEP, { type: 'action', label: 'Try again now', action: { kind: 'retry-gateway' }, enabled: true });

  items.push(SEP);
  items.push({
    type: 'submenu',
    label: 'Notifications',
    items: (Object.keys(NOTICE_LABELS) as NoticeKind[]).map((which) => ({
      type: 'checkbox',
      label: NOTICE_LABELS[which],
      checked: settings.notifications[which],
      action: { kind: 'set-notification', which, on: !settings.notifications[which] },
      enabled: true,
    })),
  });
  items.push({
    type: 'checkbox',
    label: 'Launch at login',
    checked: launchAtLogin,
    action: { kind: 'set-launch-at-login', on: !launchAtLogin },
    enabled: true,
  });
  const u = state.update;
  if (u && u.downloaded)
    items.push({
      type: 'action',
      label: `Restart to install Tollgate ${u.version}`,
      action: { kind: 'install-update' },
      enabled: true,
    });
  else if (u)
    items.push({
      type: 'action',
      label: `Download Tollgate ${u.version}`,
      action: { kind: 'download-update' },
      enabled: true,
    });
  else items.push({ type: 'action', label: 'Check for updates', action: { kind: 'check-updates' }, enabled: true });
  items.push({ type: 'action', label: 'Open log folder', action: { kind: 'open-log-folder' }, enabled: true });
  items.push(SEP);
  items.push({ type: 'action', label: 'Quit Tollgate', action: { kind: 'quit' }, enabled: true });
  return items;
}
