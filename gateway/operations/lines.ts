/**
 * Lines: an upstream provider's address, wire format, key (OS keychain or an environment
 * variable), models and limits. Add (from a preset or by hand), change, remove, and the presets
 * to add from; asking a line's upstream is in line-upstream.ts, its new models in line-models.ts.
 */
import { randomUUID } from 'node:crypto';
import { isLoopbackHost } from '../contract/loopback.js';
import { modelStatus } from '../catalogue/lifecycle.js';
import type { Gateway } from '../compose/gateway.js';
import { CREDENTIAL_VARIABLE_RULE, isCredentialVariable, type AuthStyle } from '../core/auth.js';
import type { ListedModel } from '../core/format.js';
import type { LineQuirks } from '../core/quirks.js';
import { ANTHROPIC_VERSION } from '../wire/index.js';
import type { LineRecord } from '../store/types.js';
import {
  AdminError,
  type CreateLineBody,
  type LineAddedView,
  type LineView,
  type PresetView,
  type UpdateLineBody,
} from '../contract/admin/index.js';
import { isLocalLine, newLineModels } from './line-models.js';
import { listedModels } from './line-upstream.js';
import { checkNotRetired } from './model-checks.js';

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
    effectiveTimeouts: g.lines.timeoutsFor(l),
    health: g.health.describe(l.id, Date.now()),
    quirks: l.quirks ?? {},
    anthropicVersion: l.protocol === 'anthropic' ? (l.anthropicVersion ?? ANTHROPIC_VERSION) : null,
    planWindows: g.lines.planWindows.view(l.id),
  };
}

/** The quirks a line keeps: its own, with each quirk `changes` names replaced (a quirk cleared with null stays recorded as cleared). */
function mergedQuirks(own: LineQuirks | undefined, changes: LineQuirks | undefined): LineQuirks | undefined {
  if (!changes) return own;
  const out = { ...own, ...changes };
  return Object.keys(out).length > 0 ? out : undefined;
}

function checkAnthropicVersion(protocol: string, version: string | null | undefined): void {
  if (version != null && protocol !== 'anthropic')
    throw new AdminError(
      400,
      'invalid_request',
      `anthropicVersion is for anthropic lines; this line speaks ${protocol}.`,
    );
  if (version != null && Number.isNaN(Date.parse(version)))
    throw new AdminError(400, 'invalid_request', `anthropicVersion "${version}" is not a date (YYYY-MM-DD).`);
}

export function listLines(g: Gateway): LineView[] {
  return g.config.data.lines.map((l) => lineView(g, l));
}

export function findLine(g: Gateway, name: string): LineRecord {
  const line = g.config.data.lines.find((l) => l.name === name);
  if (!line) throw new AdminError(404, 'unknown_line', `There is no line named "${name}".`);
  return line;
}

/**
 * The gateway's own address: a line pointing there would send each request back to the gateway,
 * which would forward it to the same line again, without end (relay/upstream-call.ts also refuses
 * such a request when it arrives, for addresses this check cannot see, such as a LAN name).
 */
function pointsAtSelf(url: URL, self: string | undefined): boolean {
  if (!self) return false;
  const me = new URL(self);
  const port = (u: URL): string => u.port || (u.protocol === 'https:' ? '443' : '80');
  if (port(url) !== port(me)) return false;
  const host = url.hostname;
  return host === me.hostname || isLoopbackHost(host) || everyInterface(host);
}

/** 0.0.0.0 and ::, in any spelling the URL parser leaves (`[::ffff:0.0.0.0]` becomes `[::ffff:0:0]`): connecting to them reaches this machine. */
function everyInterface(host: string): boolean {
  return /^0\.\d+\.\d+\.\d+$/.test(host) || host === '[::]' || /^\[::ffff:0:[0-9a-f]{1,4}\]$/.test(host);
}

export function checkKeyVariable(name: string | null | undefined): void {
  if (name && !isCredentialVariable(name)) {
    throw new AdminError(
      400,
      'bad_key_variable',
      `"${name}" does not look like a credential: the key variable must be ${CREDENTIAL_VARIABLE_RULE}. Its value is sent upstream as the line's API key.`,
    );
  }
}

export function checkBaseUrl(text: string, self?: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AdminError(400, 'bad_url', `"${text}" is not a URL. Example: https://api.openai.com/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AdminError(400, 'bad_url', 'The base URL must start with http:// or https://.');
  if (url.username || url.password)
    throw new AdminError(
      400,
      'bad_url',
      'Put no credential in the base URL; give the line an API key instead (--api-key-stdin).',
    );
  if (pointsAtSelf(url, self)) {
    throw new AdminError(
      400,
      'line_points_at_gateway',
      `The base URL ${url.origin} is this Tollgate gateway itself: its requests would come back to it without end. Give the upstream provider's URL.`,
    );
  }
  return url.toString().replace(/\/+$/, '');
}

function checkModelMap(models: readonly string[], modelMap: Record<string, string>): void {
  const unmapped = Object.keys(modelMap).filter((id) => !models.includes(id));
  if (unmapped.length > 0)
    throw new AdminError(
      400,
      'bad_model_map',
      `The model map names models the line does not serve: ${unmapped.join(', ')}.`,
    );
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

type FilledLineBody = CreateLineBody &
  Required<Pick<CreateLineBody, 'name' | 'protocol' | 'baseUrl' | 'models'>> & {
    quirks?: LineQuirks;
    auth?: AuthStyle;
    listed?: Map<string, ListedModel>;
  };

/**
 * A preset fills what the request leaves out: protocol, base URL, the preset's models (those its
 * protocol can serve and not retired) with their vendor ids, and the vendor's key variable unless a
 * key is given. A local preset lists no models: the server is asked which it has.
 */
async function withPreset(g: Gateway, body: CreateLineBody): Promise<FilledLineBody> {
  let filled: CreateLineBody & { listed?: Map<string, ListedModel> } = { ...body };
  if (body.preset !== undefined) {
    const preset = g.presets.get(body.preset);
    if (!preset)
      throw new AdminError(
        400,
        'unknown_preset',
        `There is no preset "${body.preset}". Presets: ${[...g.presets.keys()].join(', ')}.`,
      );
    const now = g.catalogue.now();
    const served = preset.models.filter((m) => {
      const model = g.catalogue.get(m.id);
      return (
        (!m.definition || m.definition.nativeProtocols.includes(preset.protocol)) &&
        !(model && modelStatus(model, now) === 'retired')
      );
    });
    let models = body.models ?? served.map((m) => m.id);
    let listed: Map<string, ListedModel> | undefined;
    if (models.length === 0 && preset.local) {
      listed = await localModels(
        g,
        preset.id,
        body.baseUrl ?? preset.baseUrl,
        body.protocol ?? preset.protocol,
        body.name ?? preset.id,
      );
      models = [...listed.keys()];
    }
    const modelMap: Record<string, string> = {};
    for (const m of served) if (m.upstreamId !== m.id && models.includes(m.id)) modelMap[m.id] = m.upstreamId;
    if (models.length === 0)
      throw new AdminError(
        400,
        'no_models',
        `The preset "${preset.id}" lists no models; name the ones the server has with --models.`,
      );
    filled = {
      name: preset.id,
      protocol: preset.protocol,
      baseUrl: preset.baseUrl,
      ...body,
      models,
      modelMap: { ...modelMap, ...(body.modelMap ?? {}) },
      ...(body.apiKey === undefined && body.apiKeyEnv === undefined && preset.apiKeyEnv
        ? { apiKeyEnv: preset.apiKeyEnv }
        : {}),
      // The preset's endpoint quirks, with the request's own word over them.
      ...((body.protocol ?? preset.protocol) === preset.protocol
        ? {
            quirks: mergedQuirks(preset.quirks, body.quirks),
            ...(preset.anthropicVersion && body.anthropicVersion == null
              ? { anthropicVersion: preset.anthropicVersion }
              : {}),
          }
        : {}),
      // How the vendor takes its key. `none` is not copied: such a line has no key to send, and one
      // given to it later goes in its wire format's usual style.
      ...(preset.auth !== 'none' && (body.protocol ?? preset.protocol) === preset.protocol
        ? { auth: preset.auth }
        : {}),
      // A local server's models cost nothing: unknown ids are added free unless the request prices them.
      ...(preset.local && body.addModels === undefined ? { addModels: { free: true } } : {}),
      ...(listed ? { listed } : {}),
    };
  }
  const missing = (['name', 'protocol', 'baseUrl', 'models'] as const).filter((k) => filled[k] === undefined);
  if (missing.length > 0)
    throw new AdminError(400, 'invalid_request', `A line needs ${missing.join(', ')} (or a preset that gives them).`);
  return filled as FilledLineBody;
}

/** What a local server (Ollama, LM Studio) lists, asked before its line exists; a 400 that says how to go on when it does not answer. */
async function localModels(
  g: Gateway,
  preset: string,
  baseUrl: string,
  protocol: LineRecord['protocol'],
  name: string,
): Promise<Map<string, ListedModel>> {
  const probe: LineRecord = {
    id: '',
    name,
    protocol,
    baseUrl,
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
  };
  let listed: ListedModel[];
  try {
    listed = await listedModels(g, probe);
  } catch (err) {
    throw new AdminError(
      400,
      'no_models',
      `The preset "${preset}" lists no models, and the server at ${baseUrl} did not list its own (${(err as Error).message}). Is it running? Or name its models with --models.`,
    );
  }
  if (listed.length === 0)
    throw new AdminError(
      400,
      'no_models',
      `The server at ${baseUrl} has no models yet: pull or load one, or name its models with --models.`,
    );
  return new Map(listed.map((m) => [m.id, m]));
}

export async function addLine(g: Gateway, request: CreateLineBody, self?: string): Promise<LineAddedView> {
  const body = await withPreset(g, request);
  if (g.config.data.lines.some((l) => l.name === body.name))
    throw new AdminError(409, 'name_taken', `A line named "${body.name}" already exists.`);
  const baseUrl = checkBaseUrl(body.baseUrl, self);
  checkKeyVariable(body.apiKeyEnv);
  checkNotRetired(g, body.models);
  const { records, added } = newLineModels(g, body.models, {
    line: { name: body.name, protocol: body.protocol },
    vendor: body.preset ?? body.name,
    addModels: body.addModels,
    ...(body.listed ? { listed: body.listed } : {}),
  });
  checkModelMap(body.models, body.modelMap ?? {});
  checkAnthropicVersion(body.protocol, body.anthropicVersion);
  if (body.apiKey !== undefined && body.apiKeyEnv)
    throw new AdminError(
      400,
      'two_key_sources',
      'Give the line an API key or an environment variable for it, not both.',
    );
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
    ...(body.quirks && Object.keys(body.quirks).length > 0 ? { quirks: body.quirks } : {}),
    ...(body.anthropicVersion ? { anthropicVersion: body.anthropicVersion } : {}),
    ...(body.auth ? { auth: body.auth } : {}),
    ...(body.preset ? { preset: body.preset } : {}),
  };
  try {
    await g.config.update((d) => {
      (d.models ??= []).push(...records);
      d.lines.push(line);
    });
  } catch (err) {
    if (body.apiKey !== undefined) await g.lines.setCredential(id, undefined).catch(() => undefined);
    throw err;
  }
  return saved(g, line, added);
}

/** What will keep a saved line from working: a key variable the gateway's environment lacks. */
function warningsOf(line: LineRecord): string[] {
  if (line.apiKeySource === 'env' && line.apiKeyEnv && !process.env[line.apiKeyEnv])
    return [
      `${line.apiKeyEnv} is not set in the gateway's environment, so requests on "${line.name}" will fail until it is. Set it where Tollgate runs and restart Tollgate, or keep the key in the keychain instead.`,
    ];
  return [];
}

/** The reply to a save: the line, the models it added, and what will keep it from working. */
function saved(g: Gateway, line: LineRecord, added: LineAddedView['addedModels']): LineAddedView {
  const warnings = warningsOf(line);
  return { line: lineView(g, line), addedModels: added, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** Puts a line's key in the OS keychain, or says plainly that there is none here. */
async function storeKey(g: Gateway, lineId: string, secret: string): Promise<void> {
  try {
    await g.lines.setCredential(lineId, secret);
  } catch {
    // The keychain's own text (D-Bus errors, the internal line id) means nothing to a person; the
    // doctor and `GET /api/lines/key-storage` say what is wrong with the keychain.
    throw new AdminError(
      503,
      'keychain_unavailable',
      'There is no OS keychain Tollgate can use on this machine, so nothing was saved. Keep the key in an environment variable of the gateway instead (--api-key-env VAR).',
    );
  }
}

/** Removes a line's key from the keychain when it no longer comes from there. */
async function dropKey(g: Gateway, line: LineRecord): Promise<void> {
  if (g.lines.keySource(line) === 'keychain') await g.lines.setCredential(line.id, undefined).catch(() => undefined);
}

export async function updateLine(
  g: Gateway,
  name: string,
  body: UpdateLineBody,
  self?: string,
): Promise<LineAddedView> {
  const line = findLine(g, name);
  const wasEnabled = line.enabled;
  const baseUrl = body.baseUrl === undefined ? line.baseUrl : checkBaseUrl(body.baseUrl, self);
  checkKeyVariable(body.apiKeyEnv);
  const models = body.models ? [...new Set(body.models)] : line.models;
  const modelMap = body.modelMap ?? line.modelMap;
  if (body.models) checkNotRetired(g, models);
  const { records, added } = newLineModels(g, models, {
    line,
    vendor: line.preset ?? line.name,
    addModels: body.addModels ?? (isLocalLine(g, line) ? { free: true } : undefined),
  });
  checkModelMap(models, modelMap);
  checkAnthropicVersion(line.protocol, body.anthropicVersion);
  if (body.apiKey !== undefined && body.apiKeyEnv)
    throw new AdminError(
      400,
      'two_key_sources',
      'Give the line an API key or an environment variable for it, not both.',
    );
  if (body.apiKey !== undefined) await storeKey(g, line.id, body.apiKey);
  else if (body.apiKeyEnv !== undefined) await dropKey(g, line);
  await g.config.update((d) => {
    (d.models ??= []).push(...records);
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
    // The whole map, as modelMap: a quirk left out goes back to what the served model's vendor data says.
    if (body.quirks !== undefined) {
      const quirks = mergedQuirks(undefined, body.quirks);
      if (quirks) line.quirks = quirks;
      else delete line.quirks;
    }
    if (body.anthropicVersion === null) delete line.anthropicVersion;
    else if (body.anthropicVersion !== undefined) line.anthropicVersion = body.anthropicVersion;
  });
  // Turning a line off and on is how a user says "try it again now": a 429 hold or an open breaker
  // from before would otherwise keep the re-enabled line out for up to 10 minutes.
  if (body.enabled !== undefined && body.enabled !== wasEnabled) g.health.forget(line.id);
  return saved(g, line, added);
}

export async function removeLine(g: Gateway, name: string): Promise<LineView> {
  const line = findLine(g, name);
  await g.config.update((d) => {
    d.lines = d.lines.filter((l) => l !== line);
  });
  await dropKey(g, line);
  return lineView(g, line);
}
