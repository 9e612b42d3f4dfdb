import { randomUUID } from 'node:crypto';
import { usdExact } from '../contract/money.js';
import { generateSecret, hashSecret, lastFour } from '../keys/secret.js';
import type { KeyRecord } from '../store/types.js';
import type { Gateway } from '../compose/gateway.js';
import { DEFAULT_GROUP } from '../store/config.js';
import {
  AdminError,
  type AliasView,
  type CreateAliasBody,
  type CreatedKey,
  type CreateGroupBody,
  type CreateKeyBody,
  type DoctorCheck,
  type DoctorReport,
  type GroupView,
  type KeyView,
  type UpdateKeyBody,
  type WalletView,
} from '../contract/admin/index.js';
import { checkGroupFields } from './groups.js';
import { checkModels } from './lines.js';
import { catalogueChecks } from './doctor-catalogue.js';
import { checkNotRetired } from './line-models.js';
import { isRetired } from '../catalogue/lifecycle.js';

export { AdminError };

function keyView(g: Gateway, k: KeyRecord): KeyView {
  return {
    id: k.id,
    name: k.name,
    group: k.group,
    state: k.state,
    last4: k.last4,
    quotaMicro: k.quotaMicro,
    usedMicro: g.ledger.keyUsageMicro(k.id),
    expiresAt: k.expiresAt,
    createdAt: k.createdAt,
    rpm: k.rpm ?? null,
    maxConcurrent: k.maxConcurrent ?? null,
  };
}

export function listKeys(g: Gateway): KeyView[] {
  return g.config.data.keys.filter((k) => k.state !== 'deleted').map((k) => keyView(g, k));
}

export async function createKey(g: Gateway, body: CreateKeyBody): Promise<CreatedKey> {
  const group = body.group ?? DEFAULT_GROUP;
  if (!g.config.data.groups.some((x) => x.name === group)) {
    throw new AdminError(
      400,
      'unknown_group',
      `There is no group "${group}". Groups: ${g.config.data.groups.map((x) => x.name).join(', ')}.`,
    );
  }
  if (g.config.data.keys.some((k) => k.name === body.name && k.state !== 'deleted')) {
    throw new AdminError(409, 'name_taken', `A key named "${body.name}" already exists. Key names are unique.`);
  }
  if (body.expiresAt && Date.parse(body.expiresAt) <= Date.now())
    throw new AdminError(400, 'expired', 'The expiry time is in the past.');
  const secret = generateSecret();
  const record: KeyRecord = {
    id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    name: body.name,
    hash: hashSecret(secret),
    last4: lastFour(secret),
    group,
    quotaMicro: body.quotaMicro ?? null,
    expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
    state: 'enabled',
    createdAt: new Date().toISOString(),
    rpm: body.rpm ?? null,
    maxConcurrent: body.maxConcurrent ?? null,
  };
  await g.config.update((d) => {
    d.keys.push(record);
  });
  return { key: keyView(g, record), secret };
}

/**
 * Gives an existing key a new secret (its id, group, quota and usage stay): the old secret stops
 * working at once. Returns the secret, shown once, and a way to put the old one back.
 */
export async function rotateSecret(
  g: Gateway,
  name: string,
): Promise<{ secret: string; key: KeyView; undo: () => Promise<void> }> {
  const k = findKey(g, name);
  const old = { hash: k.hash, last4: k.last4 };
  const secret = generateSecret();
  await g.config.update(() => {
    k.hash = hashSecret(secret);
    k.last4 = lastFour(secret);
  });
  const undo = async (): Promise<void> => {
    await g.config.update(() => Object.assign(k, old));
  };
  return { secret, key: keyView(g, k), undo };
}

function findKey(g: Gateway, name: string): KeyRecord {
  const k = g.config.data.keys.find((x) => x.name === name && x.state !== 'deleted');
  if (!k) throw new AdminError(404, 'unknown_key', `There is no key named "${name}".`);
  return k;
}

export async function setKeyState(g: Gateway, name: string, state: KeyRecord['state']): Promise<KeyView> {
  const k = findKey(g, name);
  await g.config.update(() => {
    k.state = state;
  });
  return keyView(g, k);
}

/** Changes a key's group, quota, expiry or limits; what the body leaves out stays. */
export async function updateKey(g: Gateway, name: string, body: UpdateKeyBody): Promise<KeyView> {
  const k = findKey(g, name);
  if (body.group !== undefined && !g.config.data.groups.some((x) => x.name === body.group)) {
    throw new AdminError(
      400,
      'unknown_group',
      `There is no group "${body.group}". Groups: ${g.config.data.groups.map((x) => x.name).join(', ')}.`,
    );
  }
  if (body.expiresAt && Date.parse(body.expiresAt) <= Date.now())
    throw new AdminError(400, 'expired', 'The expiry time is in the past.');
  await g.config.update(() => {
    if (body.group !== undefined) k.group = body.group;
    if (body.quotaMicro !== undefined) k.quotaMicro = body.quotaMicro;
    if (body.expiresAt !== undefined)
      k.expiresAt = body.expiresAt === null ? null : new Date(body.expiresAt).toISOString();
    if (body.rpm !== undefined) k.rpm = body.rpm;
    if (body.maxConcurrent !== undefined) k.maxConcurrent = body.maxConcurrent;
  });
  return keyView(g, k);
}

export function wallet(g: Gateway): WalletView {
  const balanceMicro = g.ledger.balanceMicro();
  const topupsMicro = g.ledger.topupsMicro();
  const adjustmentsMicro = g.ledger.adjustmentsMicro();
  return {
    balanceMicro,
    heldMicro: g.billing.reservations.heldMicro(),
    topupsMicro,
    adjustmentsMicro,
    spentMicro: topupsMicro + adjustmentsMicro - balanceMicro,
  };
}

/** A signed correction with its reason; one that would take the balance below zero is refused. */
export function adjust(g: Gateway, amountMicro: number, note: string): WalletView {
  if (amountMicro === 0) throw new AdminError(400, 'invalid_request', 'An adjustment must not be zero.');
  if (note.trim() === '') throw new AdminError(400, 'invalid_request', 'An adjustment needs a note saying why.');
  const balance = g.ledger.balanceMicro();
  if (balance + amountMicro < 0) {
    throw new AdminError(
      400,
      'invalid_request',
      `The balance is ${usdExact(balance)}; an adjustment of ${usdExact(amountMicro)} would take it below zero.`,
    );
  }
  g.ledger.adjust(amountMicro, note.trim());
  return wallet(g);
}

export function topup(g: Gateway, amountMicro: number, note?: string): WalletView {
  g.ledger.topup(amountMicro, note ?? null);
  return wallet(g);
}

export function listGroups(g: Gateway): GroupView[] {
  return g.config.data.groups.map((x) => ({ ...x }));
}

export async function addGroup(g: Gateway, body: CreateGroupBody): Promise<GroupView> {
  if (g.config.data.groups.some((x) => x.name === body.name))
    throw new AdminError(409, 'name_taken', `A group named "${body.name}" already exists.`);
  const multiplier = body.multiplier ?? '1';
  const models = body.models ?? ['*'];
  checkGroupFields(g, multiplier, models);
  const group = { name: body.name, multiplier, models };
  await g.config.update((d) => {
    d.groups.push(group);
  });
  return { ...group };
}

/** Config consistency and the ledger invariant. `ok` is false if any check fails. */
export async function doctor(g: Gateway): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const inv = g.ledger.checkInvariant();
  checks.push({
    name: 'ledger invariant',
    ok: inv.topupsMicro + inv.adjustmentsMicro - inv.balanceMicro === inv.loggedCostMicro,
    detail:
      `top-ups ${usdExact(inv.topupsMicro)} + adjustments ${usdExact(inv.adjustmentsMicro)} − balance ${usdExact(inv.balanceMicro)} = ` +
      `${usdExact(inv.topupsMicro + inv.adjustmentsMicro - inv.balanceMicro)}; logged costs ${usdExact(inv.loggedCostMicro)}` +
      (inv.prunedCostMicro > 0
        ? ` (${usdExact(inv.prunedCostMicro)} of it in rows pruned by retention, kept as daily totals)`
        : ''),
  });
  checks.push({
    name: 'key usage',
    ok: inv.keyMismatches.length === 0,
    detail:
      inv.keyMismatches.length === 0
        ? "every key's usage equals the sum of its logged costs"
        : inv.keyMismatches
            .map((k) => `${k.keyId}: usage ${usdExact(k.usageMicro)} vs logged ${usdExact(k.loggedMicro)}`)
            .join('; '),
  });
  checks.push(...moneyChecks(g));
  const groups = new Set(g.config.data.groups.map((x) => x.name));
  const orphanKeys = g.config.data.keys.filter((k) => k.state !== 'deleted' && !groups.has(k.group));
  checks.push({
    name: 'key groups',
    ok: orphanKeys.length === 0,
    detail:
      orphanKeys.length === 0
        ? 'every key belongs to an existing group'
        : `keys in missing groups: ${orphanKeys.map((k) => k.name).join(', ')}`,
  });
  const badLineModels = g.config.data.lines.flatMap((l) =>
    l.models.filter((m) => !g.catalogue.has(m)).map((m) => `${l.name}: ${m}`),
  );
  checks.push({
    name: 'line models',
    ok: badLineModels.length === 0,
    detail:
      badLineModels.length === 0
        ? 'every line serves catalogue models'
        : `not in the catalogue: ${badLineModels.join(', ')}`,
  });
  checks.push(...catalogueChecks(g));
  const problems: string[] = [];
  for (const l of g.config.data.lines) {
    const source = g.lines.keySource(l);
    if (source === 'env' && !process.env[l.apiKeyEnv ?? ''])
      problems.push(`line ${l.name} needs ${l.apiKeyEnv} set in the gateway's environment`);
    if (source === 'keychain') {
      const found = await g.secrets.get(l.id).then(
        (v) => (v === undefined ? 'missing from the OS keychain' : null),
        (err: Error) => `not readable from the OS keychain (${err.message})`,
      );
      if (found) problems.push(`line ${l.name}: its key is ${found}`);
    }
  }
  checks.push({
    name: 'line credentials',
    ok: problems.length === 0,
    detail: problems.length === 0 ? 'every line can find its key (keychain or environment)' : problems.join('; '),
  });
  return { ok: checks.every((c) => c.ok), checks };
}

/**
 * The money checks beyond the invariant: the balance a whole non-negative number, no row with a
 * negative or fractional cost or token count, no key over its quota by more than one bounded
 * reservation (its largest charge), no request a stopped gateway left unsettled, no failed ledger
 * write since start (docs/money.md).
 */
function moneyChecks(g: Gateway): DoctorCheck[] {
  const quotas = new Map(g.config.data.keys.filter((k) => k.quotaMicro !== null).map((k) => [k.id, k.quotaMicro!]));
  const p = g.ledger.problems(quotas);
  const names = new Map(g.config.data.keys.map((k) => [k.id, k.name]));
  const ids = (x: { count: number; requestIds: string[] }): string =>
    `${x.requestIds.join(', ')}${x.count > x.requestIds.length ? ', …' : ''}`;
  const failure = g.ledger.writeFailure();
  return [
    {
      name: 'wallet balance',
      ok: p.badBalance === null,
      detail:
        p.badBalance === null
          ? 'a whole, non-negative number of micro-USD'
          : `the stored balance is ${p.badBalance}, not a whole non-negative number of micro-USD`,
    },
    {
      name: 'ledger rows',
      ok: p.badRows.count === 0,
      detail:
        p.badRows.count === 0
          ? 'every cost and token count is a whole non-negative number'
          : `${p.badRows.count} rows with a negative or fractional cost or token count: ${ids(p.badRows)}`,
    },
    {
      name: 'key quotas',
      ok: p.overQuota.length === 0,
      detail:
        p.overQuota.length === 0
          ? 'no key spent beyond its quota by more than one request'
          : p.overQuota
              .map(
                (k) =>
                  `${names.get(k.keyId) ?? k.keyId}: used ${usdExact(k.usedMicro)} of a ${usdExact(k.quotaMicro)} quota (largest request ${usdExact(k.largestMicro)}; was the quota lowered after the spending?)`,
              )
              .join('; '),
    },
    {
      name: 'settlement',
      ok: p.unsettled.count === 0,
      detail:
        p.unsettled.count === 0
          ? 'every admitted request was settled (or is in flight)'
          : `${p.unsettled.count} requests were admitted by a gateway that stopped before settling them (${ids(p.unsettled)}); nothing was charged for them, and the next start logs them as interrupted`,
    },
    {
      name: 'ledger writes',
      ok: failure === null,
      detail:
        failure === null
          ? 'no ledger write failed since the gateway started'
          : `${failure.count} ledger writes failed since the gateway started, the last at ${new Date(failure.at).toISOString()}: ${failure.last}`,
    },
  ];
}

export function listAliases(g: Gateway): AliasView[] {
  return g.config.data.aliases.map((a) => ({ ...a }));
}

export async function addAlias(g: Gateway, body: CreateAliasBody): Promise<AliasView> {
  checkModels(g, [body.model]);
  checkNotRetired(g, [body.model]);
  const shadowed = g.catalogue.get(body.pattern);
  // A retired model's id is what an alias is for: its requests go to the alias's model instead.
  if (shadowed && !isRetired(shadowed, g.catalogue.now())) {
    throw new AdminError(
      400,
      'alias_shadows_model',
      `"${body.pattern}" is a catalogue model id; an alias for it would never apply.`,
    );
  }
  const alias = { pattern: body.pattern, model: body.model };
  await g.config.update((d) => {
    d.aliases = [...d.aliases.filter((a) => a.pattern !== body.pattern), alias];
  });
  return alias;
}

export async function removeAlias(g: Gateway, pattern: string): Promise<AliasView> {
  const found = g.config.data.aliases.find((a) => a.pattern === pattern);
  if (!found) throw new AdminError(404, 'unknown_alias', `There is no alias "${pattern}".`);
  await g.config.update((d) => {
    d.aliases = d.aliases.filter((a) => a !== found);
  });
  return found;
}
