/** Key groups: a price multiplier and the models their keys may use; list, add, change, remove. */
import { parseMultiplier } from '../core/money.js';
import type { Gateway } from '../compose/gateway.js';
import { DEFAULT_GROUP } from '../store/config.js';
import { AdminError, type CreateGroupBody, type GroupView, type UpdateGroupBody } from '../contract/admin/index.js';
import { checkModels } from './model-checks.js';

/** A multiplier above zero, and either all models ("*") or catalogue ids. */
export function checkGroupFields(g: Gateway, multiplier: string, models: readonly string[]): void {
  try {
    parseMultiplier(multiplier);
  } catch (err) {
    throw new AdminError(400, 'bad_multiplier', `Multiplier: ${(err as Error).message}.`);
  }
  if (models.includes('*') && models.length > 1)
    throw new AdminError(400, 'bad_models', 'Use either "*" (all models) or a list of model ids, not both.');
  if (!models.includes('*')) checkModels(g, models);
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

function findGroup(g: Gateway, name: string) {
  const group = g.config.data.groups.find((x) => x.name === name);
  if (!group) throw new AdminError(404, 'unknown_group', `There is no group "${name}".`);
  return group;
}

/** New multiplier or models for a group; its keys are billed and allowed by them from the next request. */
export async function updateGroup(g: Gateway, name: string, body: UpdateGroupBody): Promise<GroupView> {
  const group = findGroup(g, name);
  const multiplier = body.multiplier ?? group.multiplier;
  const models = body.models ?? group.models;
  checkGroupFields(g, multiplier, models);
  await g.config.update(() => {
    group.multiplier = multiplier;
    group.models = [...models];
  });
  return { ...group, models: [...group.models] };
}

/** Removes a group no key uses; `default` stays. */
export async function removeGroup(g: Gateway, name: string): Promise<GroupView> {
  const group = findGroup(g, name);
  if (name === DEFAULT_GROUP) throw new AdminError(400, 'default_group', 'The default group cannot be removed.');
  const users = g.config.data.keys.filter((k) => k.state !== 'deleted' && k.group === name).map((k) => k.name);
  if (users.length > 0)
    throw new AdminError(
      409,
      'group_in_use',
      `Keys use the group "${name}": ${users.join(', ')}. Move them to another group first.`,
    );
  await g.config.update((d) => {
    d.groups = d.groups.filter((x) => x !== group);
  });
  return { ...group };
}
