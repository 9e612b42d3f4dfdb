import { randomUUID } from 'node:crypto';
import { authHeaders } from '../core/auth.js';
import { endpoint } from '../upstream/client.js';
import { wireFormat } from '../wire/index.js';
import type { Gateway } from '../compose/gateway.js';
import type { LineRecord } from '../store/types.js';
import type { AuthStyle } from '../core/auth.js';
import type { Quirks } from '../core/quirks.js';
import type { CreateLineBody, LineTestView, LineView, PresetView, UpdateLineBody } from './contract.js';
import { AdminError } from './errors.js';

export function lineView(g: Gateway, l: LineRecord): LineView {
  return {
    id: l.id,
    name: l.name,
    protocol: l.protocol,
    baseUrl: l.baseUrl,
    models: l.models,
    modelMap: l.modelMap,
    apiKeySource: g.lines.keySource(l),
    apiKeyEnv: l.apiKeyEnv,
    rpm: l.rpm,
    priority: l.priority,
    weight: l.weight,
    enabled: l.enabled,
    timeouts: l.timeouts,
    health: g.health.describe(l.id, Date.now()),
  };
}

export function listLines(g: Gateway): LineView[] {
  return g.config.data.lines.map((l) => lineView(g, l));
}

export function findLine(g: Gateway, name: string): LineRecord {
  const line = g.config.data.lines.find((l) => l.name === name);
  if (!line) throw new AdminError(404, 'unknown_line', `There is no line named "${name}".`);
  return line;
}

export function checkModels(g: Gateway, ids: readonly string[]): void {
  const unknown = ids.filter((id) => !g.catalogue.has(id));
  if (unknown.length > 0) {
    throw new AdminError(400, 'unknown_model', `Not in the catalogue: ${unknown.join(', ')}. The model list (tollgate models list) shows the catalogue ids.`);
  }
}

function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AdminError(400, 'bad_url', `"${text}" is not a URL. Example: https://api.openai.com/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AdminError(400, 'bad_url', 'The base URL must start with http:// or https://.');
  if (url.username || url.password) throw new AdminError(400, 'bad_url', 'Put no credential in the base URL; give the line an API key instead (--api-key-stdin).');
  return url.toString().replace(/\/+$/, '');
}

function checkModelMap(models: readonly string[], modelMap: Record<string, string>): void {
  const unmapped = Object.keys(modelMap).filter((id) => !models.includes(id));
  if (unmapped.length > 0) throw new AdminError(400, 'bad_model_map', `The model map names models the line does not serve: ${unmapped.join(', ')}.`);
}

export function listPresets(g: Gateway): PresetView[] {
  return [...g.presets.values()].map((p) => ({
    id: p.id,
    displayName: p.displayName,
    protocol: p.protocol,
    baseUrl: p.baseUrl,
    auth: p.auth,
    apiKeyEnv: p.apiKeyEnv,
    docs: p.docs,
    models: p.models.map((m) => m.id),
  }));
}

type FilledLineBody = CreateLineBody & Required<Pick<CreateLineBody, 'name' | 'protocol' | 'baseUrl' | 'models'>> & { quirks?: Quirks; auth?: AuthStyle };

/**
 * A preset fills what the request leaves out: protocol, base URL, the preset's models (those its
 * protocol can serve) with their vendor ids, and the vendor's key variable unless a key is given.
 */
function withPreset(g: Gateway, body: CreateLineBody): FilledLineBody {
  let filled = { ...body };
  if (body.preset !== undefined) {
    const preset = g.presets.get(body.preset);
    if (!preset) throw new AdminError(400, 'unknown_preset', `There is no preset "${body.preset}". Presets: ${[...g.presets.keys()].join(', ')}.`);
    const served = preset.models.filter((m) => !m.definition || m.definition.nativeProtocols.includes(preset.protocol));
    const models = body.models ?? served.map((m) => m.id);
    const modelMap: Record<string, string> = {};
    for (const m of served) if (m.upstreamId !== m.id && models.includes(m.id)) modelMap[m.id] = m.upstreamId;
    if (models.length === 0) throw new AdminError(400, 'no_models', `The preset "${preset.id}" lists no models; name the ones the server has with --models.`);
    filled = {
      name: preset.id,
      protocol: preset.protocol,
      baseUrl: preset.baseUrl,
      ...body,
      models,
      modelMap: { ...modelMap, ...(body.modelMap ?? {}) },
      ...(body.apiKey === undefined && body.apiKeyEnv === undefined && preset.apiKeyEnv ? { apiKeyEnv: preset.apiKeyEnv } : {}),
      ...(Object.keys(preset.quirks).length > 0 && (body.protocol ?? preset.protocol) === preset.protocol ? { quirks: preset.quirks } : {}),
      // How the vendor takes its key. `none` is not copied: such a line has no key to send, and one
      // given to it later goes in its wire format's usual style.
      ...(preset.auth !== 'none' && (body.protocol ?? preset.protocol) === preset.protocol ? { auth: preset.auth } : {}),
    };
  }
  const missing = (['name', 'protocol', 'baseUrl', 'models'] as const).filter((k) => filled[k] === undefined);
  if (missing.length > 0) throw new AdminError(400, 'invalid_request', `A line needs ${missing.join(', ')} (or a preset that gives them).`);
  return filled as FilledLineBody;
}

export async function addLine(g: Gateway, request: CreateLineBody): Promise<LineView> {
  const body = withPreset(g, request);
  if (g.config.data.lines.some((l) => l.name === body.name)) throw new AdminError(409, 'name_taken', `A line named "${body.name}" already exists.`);
  const baseUrl = checkBaseUrl(body.baseUrl);
  checkModels(g, body.models);
  checkModelMap(body.models, body.modelMap ?? {});
  if (body.apiKey !== undefined && body.apiKeyEnv) throw new AdminError(400, 'two_key_sources', 'Give the line an API key or an environment variable for it, not both.');
  const id = `line_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  if (body.apiKey !== undefined) await storeKey(g, id, body.apiKey);
  const line: LineRecord = {
    id,
    name: body.name,
    protocol: body.protocol,
    baseUrl,
    models: [...new Set(body.models)],
    modelMap: body.modelMap ?? {},
    apiKeySource: body.apiKey !== undefined ? 'keychain' : body.apiKeyEnv ? 'env' : 'none',
    apiKeyEnv: body.apiKey !== undefined ? null : (body.apiKeyEnv ?? null),
    rpm: body.rpm ?? null,
    priority: body.priority ?? 0,
    weight: body.weight ?? 1,
    enabled: true,
    timeouts: body.timeouts ?? {},
    createdAt: new Date().toISOString(),
    ...(body.quirks ? { quirks: body.quirks } : {}),
    ...(body.auth ? { auth: body.auth } : {}),
  };
  try {
    await g.config.update((d) => {
      d.lines.push(line);
    });
  } catch (err) {
    if (body.apiKey !== undefined) await g.lines.setCredential(id, undefined).catch(() => undefined);
    throw err;
  }
  return lineView(g, line);
}

/** Puts a line's key in the OS keychain, or says plainly that there is none here. */
async function storeKey(g: Gateway, lineId: string, secret: string): Promise<void> {
  try {
    await g.lines.setCredential(lineId, secret);
  } catch (err) {
    throw new AdminError(
      503,
      'keychain_unavailable',
      `No OS keychain is available to store the key (${(err as Error).message}). On a headless machine, put the key in an environment variable of the gateway and use --api-key-env VAR.`,
    );
  }
}

/** Removes a line's key from the keychain when it no longer comes from there. */
async function dropKey(g: Gateway, line: LineRecord): Promise<void> {
  if (g.lines.keySource(line) === 'keychain') await g.lines.setCredential(line.id, undefined).catch(() => undefined);
}

export async function updateLine(g: Gateway, name: string, body: UpdateLineBody): Promise<LineView> {
  const line = findLine(g, name);
  const baseUrl = body.baseUrl === undefined ? line.baseUrl : checkBaseUrl(body.baseUrl);
  const models = body.models ? [...new Set(body.models)] : line.models;
  const modelMap = body.modelMap ?? line.modelMap;
  checkModels(g, models);
  checkModelMap(models, modelMap);
  if (body.apiKey !== undefined && body.apiKeyEnv) throw new AdminError(400, 'two_key_sources', 'Give the line an API key or an environment variable for it, not both.');
  if (body.apiKey !== undefined) await storeKey(g, line.id, body.apiKey);
  else if (body.apiKeyEnv !== undefined) await dropKey(g, line);
  await g.config.update(() => {
    if (body.apiKey !== undefined) {
      line.apiKeySource = 'keychain';
      line.apiKeyEnv = null;
    } else if (body.apiKeyEnv !== undefined) {
      line.apiKeySource = body.apiKeyEnv ? 'env' : 'none';
      line.apiKeyEnv = body.apiKeyEnv;
    }
    line.baseUrl = baseUrl;
    line.models = models;
    line.modelMap = modelMap;
    if (body.rpm !== undefined) line.rpm = body.rpm;
    if (body.priority !== undefined) line.priority = body.priority;
    if (body.weight !== undefined) line.weight = body.weight;
    if (body.enabled !== undefined) line.enabled = body.enabled;
    if (body.timeouts !== undefined) line.timeouts = { ...line.timeouts, ...body.timeouts };
  });
  return lineView(g, line);
}

export async function removeLine(g: Gateway, name: string): Promise<LineView> {
  const line = findLine(g, name);
  await g.config.update((d) => {
    d.lines = d.lines.filter((l) => l !== line);
  });
  await dropKey(g, line);
  return lineView(g, line);
}

/** Asks the upstream for its model list: free, and it proves the URL and the credential. */
async function fetchModels(g: Gateway, line: LineRecord): Promise<{ status: number; ids: string[]; latencyMs: number; message: string }> {
  const side = wireFormat(line.protocol)?.upstream;
  if (!side) throw new AdminError(400, 'unsupported_protocol', `The upstream protocol "${line.protocol}" has no wire format in this build.`);
  const credential = await g.lines.credentialFor(line);
  const url = endpoint(line.baseUrl, side.models.path);
  const started = performance.now();
  const res = await fetch(url, {
    headers: { accept: 'application/json', 'user-agent': 'Tollgate', ...(side.models.headers ?? {}), ...(credential === undefined ? {} : authHeaders(line.auth ?? side.auth, credential)) },
    signal: AbortSignal.timeout(g.lines.timeoutsFor(line).connectMs + 10_000),
  });
  const text = await res.text();
  const latencyMs = Math.round(performance.now() - started);
  if (!res.ok) return { status: res.status, ids: [], latencyMs, message: `HTTP ${res.status}: ${text.slice(0, 300)}` };
  try {
    return { status: res.status, ids: side.models.ids(JSON.parse(text)), latencyMs, message: 'ok' };
  } catch {
    return { status: res.status, ids: [], latencyMs, message: 'the answer is not a model list' };
  }
}

export async function testLine(g: Gateway, name: string): Promise<LineTestView> {
  const line = findLine(g, name);
  const started = performance.now();
  try {
    const r = await fetchModels(g, line);
    return { ok: r.status < 400, status: r.status, latencyMs: r.latencyMs, message: r.status < 400 ? `reachable; ${r.ids.length} models listed` : r.message };
  } catch (err) {
    return { ok: false, status: null, latencyMs: Math.round(performance.now() - started), message: (err as Error).message };
  }
}

export async function upstreamModels(g: Gateway, name: string): Promise<string[]> {
  const line = findLine(g, name);
  let r;
  try {
    r = await fetchModels(g, line);
  } catch (err) {
    throw new AdminError(502, 'upstream_unreachable', `The line "${name}" did not answer: ${(err as Error).message}`);
  }
  if (r.status >= 400) throw new AdminError(502, 'upstream_error', `The line "${name}" answered ${r.message}`);
  return r.ids;
}
