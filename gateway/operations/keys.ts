/**
 * The gateway's `sk-` keys: list, create (the secret shown once, only its hash kept), give a new
 * secret, enable, disable, delete, and change group, quota, expiry or limits.
 */
import { randomUUID } from 'node:crypto';
import type { Gateway } from '../compose/gateway.js';
import { generateSecret, hashSecret, lastFour } from '../keys/secret.js';
import { DEFAULT_GROUP } from '../store/config.js';
import { DEFAULT_LOOP_LIMIT, WINDOW_IDS, type Budgets } from '../contract/sessions.js';
import type { KeyRecord } from '../store/types.js';
import {
  AdminError,
  type CreatedKey,
  type CreateKeyBody,
  type KeyUsageList,
  type KeyUsageQuery,
  type KeyView,
  type UpdateKeyBody,
  PLAYGROUND_MADE_BY,
} from '../contract/admin/index.js';

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
    sessionCapMicro: k.sessionCapMicro ?? null,
    budgets: { ...k.budgets },
    loopLimit: k.loopLimit ?? DEFAULT_LOOP_LIMIT,
    project: k.project ?? null,
    madeBy: k.madeBy ?? null,
  };
}

/** A key's budgets after a body's: a window given an amount takes it, one given null loses it. */
function budgetsAfter(had: Budgets | undefined, body: CreateKeyBody['budgets']): Budgets {
  const out: Budgets = { ...had };
  for (const w of WINDOW_IDS) {
    const v = body?.[w];
    if (v === null) delete out[w];
    else if (v !== undefined) out[w] = v;
  }
  return out;
}

export function listKeys(g: Gateway): KeyView[] {
  return g.config.data.keys.filter((k) => k.state !== 'deleted').map((k) => keyView(g, k));
}

/** `madeBy`: what made the key when no person did (a Connect tool id, or the playground). */
export async function createKey(g: Gateway, body: CreateKeyBody, madeBy?: string): Promise<CreatedKey> {
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
    sessionCapMicro: body.sessionCapMicro ?? null,
    budgets: budgetsAfter(undefined, body.budgets),
    loopLimit: body.loopLimit ?? null,
    project: body.project ?? null,
    ...(madeBy ? { madeBy } : {}),
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

const DAY_MS = 86_400_000;

/**
 * Each live key's last use and its spend per day over the last `days` days (today included, days
 * starting at the caller's time zone): the days come from the stats' hourly rollup, the last use
 * from one index lookup per key, so it stays cheap however long the log is. Rows carry the key's
 * name, so a name given again after its key was deleted counts both keys' rows.
 */
export function keyUsage(g: Gateway, q: KeyUsageQuery, now = Date.now()): KeyUsageList {
  const days = q.days ?? 30;
  const offset = (q.tz ?? 0) * 60_000;
  const since = Math.floor((now + offset) / DAY_MS) * DAY_MS - offset - (days - 1) * DAY_MS;
  const until = now + 1;
  const names = g.config.data.keys.filter((k) => k.state !== 'deleted').map((k) => k.name);
  const daily = new Map(names.map((n) => [n, new Array<number>(days).fill(0)]));
  const requests = new Map<string, number>();
  for (const r of g.ledger.reports.stats({ since, until, bucket: 'day', by: 'key', tzOffsetMinutes: q.tz ?? 0 })) {
    const series = r.group === null ? undefined : daily.get(r.group);
    const i = Math.round((r.start - since) / DAY_MS);
    if (!series || i < 0 || i >= days) continue;
    series[i]! += r.costMicro;
    requests.set(r.group!, (requests.get(r.group!) ?? 0) + r.requests);
  }
  const last = g.ledger.reports.lastUsed(names);
  return {
    since,
    until,
    days,
    keys: names.map((name) => {
      const dailyMicro = daily.get(name)!;
      return {
        name,
        lastUsedAt: last.get(name) ?? null,
        requests: requests.get(name) ?? 0,
        costMicro: dailyMicro.reduce((a, b) => a + b, 0),
        dailyMicro,
      };
    }),
  };
}

/**
 * The Playground's one key: made the first time (named `playground`, or `playground-2`… when a
 * person's key has the name), then given a new secret whenever the console asks again, since
 * Tollgate keeps only hashes and a console that reloaded has lost the secret. Nothing else sends
 * with it, so a new secret stops nothing; its rows, spend and settings stay.
 */
export async function playgroundKey(g: Gateway): Promise<CreatedKey> {
  const own = g.config.data.keys.find((k) => k.madeBy === PLAYGROUND_MADE_BY && k.state !== 'deleted');
  if (own) {
    const { secret, key } = await rotateSecret(g, own.name);
    return { key, secret };
  }
  const taken = (name: string): boolean => g.config.data.keys.some((k) => k.name === name && k.state !== 'deleted');
  let name = 'playground';
  for (let i = 2; taken(name); i++) name = `playground-${i}`;
  return createKey(g, { name }, PLAYGROUND_MADE_BY);
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
    if (body.quotaMicro !== undefined) {
      k.quotaMicro = body.quotaMicro;
      const spent = g.ledger.keyUsageMicro(k.id) + g.billing.reservations.keyHeldMicro(k.id);
      if (spent > 0) k.spentWhenQuotaSetMicro = spent;
      else delete k.spentWhenQuotaSetMicro;
    }
    if (body.expiresAt !== undefined)
      k.expiresAt = body.expiresAt === null ? null : new Date(body.expiresAt).toISOString();
    if (body.rpm !== undefined) k.rpm = body.rpm;
    if (body.maxConcurrent !== undefined) k.maxConcurrent = body.maxConcurrent;
    if (body.sessionCapMicro !== undefined) k.sessionCapMicro = body.sessionCapMicro;
    if (body.budgets !== undefined) k.budgets = budgetsAfter(k.budgets, body.budgets);
    if (body.loopLimit !== undefined) k.loopLimit = body.loopLimit;
    if (body.project !== undefined) k.project = body.project;
  });
  return keyView(g, k);
}
