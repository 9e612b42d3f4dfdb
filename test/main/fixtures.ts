/** Sample admin-API views for the desktop tests, shaped as the gateway returns them. */
import type {
  KeyView,
  LineView,
  LogEntry,
  SessionView,
  SettingsView,
  WalletView,
} from '../../gateway/contract/admin/index.js';
import { initialState, type AppState } from '../../main/state.js';
import { DEFAULT_SETTINGS, type DesktopSettings } from '../../main/settings.js';

export function key(name: string, extra: Partial<KeyView> = {}): KeyView {
  return {
    id: `key_${name}`,
    name,
    group: 'default',
    state: 'enabled',
    last4: 'abcd',
    quotaMicro: null,
    usedMicro: 0,
    expiresAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    rpm: null,
    maxConcurrent: null,
    sessionCapMicro: null,
    budgets: {},
    loopLimit: 5,
    project: null,
    madeBy: null,
    ...extra,
  };
}

export function wallet(balanceMicro: number): WalletView {
  return { balanceMicro, heldMicro: 0, topupsMicro: balanceMicro, adjustmentsMicro: 0, spentMicro: 0 };
}

export function line(name: string, health: LineView['health']['state'] = 'closed'): LineView {
  return {
    id: `line_${name}`,
    name,
    protocol: 'openai-chat',
    baseUrl: 'http://127.0.0.1:1/v1',
    models: ['gpt-4o-mini'],
    modelMap: {},
    apiKeySource: 'none',
    apiKeyEnv: null,
    rpm: null,
    priority: 0,
    weight: 1,
    enabled: true,
    timeouts: {},
    effectiveTimeouts: {
      connectMs: 10_000,
      firstByteMs: 45_000,
      nonStreamingFirstByteMs: 300_000,
      idleMs: 120_000,
      totalMs: 1_800_000,
    },
    health: {
      state: health,
      failures: health === 'open' ? 3 : 0,
      waitMs: health === 'open' ? 30_000 : 0,
      lastTest: null,
    },
    quirks: {},
    anthropicVersion: null,
    planWindows: null,
  };
}

export function logEntry(id: number, ts: number, costMicro: number): LogEntry {
  return {
    id,
    requestId: `req_${id}`,
    ts,
    keyId: 'key_a',
    keyName: 'a',
    model: 'gpt-4o-mini',
    servedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    line: 'l',
    attempts: 1,
    inboundProtocol: 'openai-chat',
    upstreamProtocol: 'openai-chat',
    stream: false,
    status: 200,
    errorCode: null,
    errorMessage: null,
    usage: {
      inputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro,
    unchargedMicro: 0,
    latencyMs: 5,
    ttfbMs: 3,
    notes: null,
    billedAt: null,
    breakdown: null,
    session: null,
    agent: null,
    tool: null,
    project: null,
    savedMicro: 0,
    cacheHitRate: 0,
  };
}

export const NOW = Date.parse('2026-06-15T12:00:00');

/** The gateway's settings as GET /api/settings answers them (defaults: $1 low-balance threshold). */
export function gatewaySettings(over: Partial<SettingsView> = {}): SettingsView {
  return {
    host: '127.0.0.1',
    port: 4141,
    retentionDays: null,
    storeBodies: false,
    storeResponses: true,
    lowBalanceMicro: 1_000_000,
    caFile: null,
    systemCa: false,
    systemCaAvailable: false,
    caAdded: 0,
    caProblem: null,
    listening: 'http://127.0.0.1:4141',
    lan: false,
    ...over,
  };
}

/** A running gateway on port 4141 with the given keys and balance. */
export function runningState(over: Partial<AppState> = {}): AppState {
  return {
    ...initialState(NOW),
    phase: { kind: 'running', url: 'http://127.0.0.1:4141', owned: true },
    wallet: wallet(5_000_000),
    keys: [key('laptop'), key('ci', { state: 'disabled' })],
    lines: [line('openai')],
    paused: false,
    settings: gatewaySettings(),
    feed: 'live',
    ...over,
  };
}

export function settings(over: Partial<DesktopSettings> = {}): DesktopSettings {
  return { ...DEFAULT_SETTINGS, notifications: { ...DEFAULT_SETTINGS.notifications }, ...over };
}

/** An agent session of Claude Code on key `laptop`, active, its last request 10 s before NOW. */
export function session(id: string, extra: Partial<SessionView> = {}): SessionView {
  return {
    id,
    tool: 'claude-code',
    keyName: 'laptop',
    project: 'tollgate',
    firstTs: NOW - 600_000,
    lastTs: NOW - 10_000,
    requests: 12,
    errors: 0,
    promptTokens: 100_000,
    cacheReadTokens: 80_000,
    outputTokens: 1_000,
    costMicro: 412_500,
    savedMicro: 100_000,
    cacheHitRate: 0.8,
    capMicro: null,
    heldMicro: 0,
    state: 'active',
    pause: null,
    ...extra,
  };
}
