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
  type KeyView,
  type UpdateKeyBody,
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
    sessionCapMicro: body.sessionCapMicro ?? null,
    budgets: budgetsAfter(undefined, body.budgets),
    loopLimit: body.loopLimit ?? null,
    project: body.project ?? null,
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
