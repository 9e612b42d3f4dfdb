/**
 * Before a line exists: whether its key can go to the OS keychain here, and which models the server
 * at a base URL lists (asked with a key typed into the dialog, used for that one call, never
 * stored), each matched against the catalogue.
 */
import { randomBytes } from 'node:crypto';
import type { Gateway } from '../compose/gateway.js';
import { perTokenToMicroPerMillion } from '../core/money.js';
import type { LineRecord } from '../store/types.js';
import {
  AdminError,
  type KeyStorageView,
  type LineUsageList,
  type ProbedModelView,
  type ProbeLineBody,
  type ProbeLineView,
} from '../contract/admin/index.js';
import { listedModels } from './line-upstream.js';
import { checkBaseUrl, checkKeyVariable } from './lines.js';

/** A keychain answer is kept this long: the probe costs a few D-Bus round trips. */
const KEY_STORAGE_TTL_MS = 30_000;
const keyStorageCache = new WeakMap<Gateway, { at: number; view: KeyStorageView }>();

/** Whether a line's key can be kept in the OS keychain here: a probe entry written, read back and removed. */
export async function keyStorage(g: Gateway): Promise<KeyStorageView> {
  const had = keyStorageCache.get(g);
  if (had && Date.now() - had.at < KEY_STORAGE_TTL_MS) return had.view;
  const id = `tollgate-probe-${randomBytes(6).toString('hex')}`;
  const value = randomBytes(12).toString('base64url');
  let view: KeyStorageView;
  try {
    await g.secrets.set(id, value);
    const back = await g.secrets.get(id);
    await g.secrets.delete(id);
    view =
      back === value
        ? { keychain: true, keychainReason: null }
        : { keychain: false, keychainReason: 'The OS keychain here does not give back what it stores.' };
  } catch {
    await g.secrets.delete(id).catch(() => undefined);
    view = {
      keychain: false,
      keychainReason:
        'There is no OS keychain Tollgate can use on this machine (on Linux, no Secret Service is running or it is locked). Keep the key in an environment variable of the gateway instead.',
    };
  }
  keyStorageCache.set(g, { at: Date.now(), view });
  return view;
}

/** Micro-USD per million tokens from a list's per-token price. */
function perMillion(perToken: string): number {
  return perTokenToMicroPerMillion(perToken).micro;
}

/** What the server at the request's base URL lists, each id matched to the catalogue model it is. */
export async function probeLine(g: Gateway, body: ProbeLineBody, self?: string): Promise<ProbeLineView> {
  const preset = body.preset === undefined ? undefined : g.presets.get(body.preset);
  if (body.preset !== undefined && !preset)
    throw new AdminError(400, 'unknown_preset', `There is no preset "${body.preset}".`);
  const baseUrl = body.baseUrl ?? preset?.baseUrl;
  const protocol = body.protocol ?? preset?.protocol;
  if (!baseUrl || !protocol)
    throw new AdminError(400, 'invalid_request', 'Give the base URL and protocol of the server (or a preset).');
  checkKeyVariable(body.apiKeyEnv);
  const env = body.apiKeyEnv ?? (body.apiKey === undefined ? (preset?.apiKeyEnv ?? undefined) : undefined);
  const credential = body.apiKey ?? (env ? process.env[env] : undefined);
  const probe: LineRecord = {
    id: '',
    name: preset?.id ?? 'new line',
    protocol,
    baseUrl: checkBaseUrl(baseUrl, self),
    models: [],
    modelMap: {},
    apiKeySource: 'none',
    apiKeyEnv: null,
    rpm: null,
    priority: 0,
    weight: 1,
    enabled: true,
    timeouts: {},
    createdAt: '',
    ...(preset && preset.auth !== 'none' && protocol === preset.protocol ? { auth: preset.auth } : {}),
  };
  const started = performance.now();
  const listed = await listedModels(g, probe, { credential });
  const byUpstream = new Map((preset?.models ?? []).map((m) => [m.upstreamId, m.id]));
  const models: ProbedModelView[] = listed.map((m) => {
    const catalogueId = byUpstream.get(m.id) ?? (g.catalogue.has(m.id) ? m.id : null);
    const p = m.perToken;
    return {
      id: m.id,
      catalogueId,
      listedPrice:
        p?.input !== undefined && p.output !== undefined
          ? { input: perMillion(p.input), output: perMillion(p.output) }
          : null,
    };
  });
  return { models, latencyMs: Math.round(performance.now() - started) };
}

const DAY_MS = 86_400_000;

/** Each line's requests, failures, median latency and last failure since `since` (the last day by default). */
export function lineUsage(g: Gateway, since = Date.now() - DAY_MS): LineUsageList {
  return {
    since,
    lines: g.ledger.reports.lineUsage(since).map((u) => ({
      line: u.line,
      requests: u.requests,
      errors: u.errors,
      p50LatencyMs: u.p50LatencyMs,
      lastError:
        u.lastErrorStatus === null || u.lastErrorAt === null
          ? null
          : { status: u.lastErrorStatus, message: u.lastErrorMessage, ts: u.lastErrorAt },
    })),
  };
}
