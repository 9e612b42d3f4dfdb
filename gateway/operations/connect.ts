import { homedir } from 'node:os';
import {
  connectStatus,
  connectTool,
  disconnectTool,
  envTarget,
  ENV_TARGETS,
  findTool,
  keyInFiles,
  listRecords,
  planConnect,
  readRecord,
  shellExports,
  snippets,
  toolById,
  TOOLS,
  type ConnectContext,
  type GatewayView,
  type ToolSpec,
  type Where,
  type Wiring,
} from '../connect/index.js';
import { GatewayError } from '../core/errors.js';
import { generateSecret, hashSecret } from '../keys/secret.js';
import type { KeyRecord } from '../store/types.js';
import type { Gateway } from '../compose/gateway.js';
import { DEFAULT_GROUP } from '../store/config.js';
import { chooseModels } from './connect-models.js';
import {
  AdminError,
  type ConnectBody,
  type ConnectionsView,
  type ConnectView,
  type DisconnectQuery,
  type DisconnectView,
  type EnvBody,
  type EnvView,
  type SnippetsQuery,
  type SnippetsView,
} from '../contract/admin/index.js';
import { createKey, rotateSecret, setKeyState } from './keys.js';

/** Where the gateway finds the tools' files: its own home and environment, as the tools themselves do. */
export function processWhere(): Where {
  return { home: homedir(), env: process.env };
}

/** The preset whose models each SDK target of `tollgate env` defaults to. */
const SDK_VENDOR: Readonly<Record<string, string>> = { openai: 'openai', anthropic: 'anthropic', google: 'google' };

/** Stands for the key in exports that refer to $TOLLGATE_KEY instead of a secret. */
const NO_SECRET = '\u0000no-secret\u0000';

/**
 * The connect routes: the gateway itself edits the tools' files (docs/connect.md), with a key
 * dedicated to each tool and models its lines serve. Connects and disconnects of one tool run
 * one after the other; the engine's lock file also keeps out other processes.
 */
export class Connections {
  private readonly queue = new Map<string, Promise<unknown>>();

  constructor(
    private readonly g: Gateway,
    private readonly origin: () => string,
    private readonly where: Where = processWhere(),
  ) {}

  private get ctx(): ConnectContext {
    return { ...this.where, dataDir: this.g.dataDir };
  }

  async status(): Promise<ConnectionsView> {
    const origin = this.origin();
    const { keys, lines } = this.g.config.data;
    const view: GatewayView = {
      origin,
      // Deleted keys leave their records behind; a name may be taken again by a live key.
      keys: keys
        .filter((k) => k.state !== 'deleted')
        .map((k) => ({ name: k.name, state: expired(k) ? 'expired' : k.state, hash: k.hash })),
      models: [...this.g.catalogue.keys()].filter((id) => lines.some((l) => l.enabled && l.models.includes(id))),
    };
    const all = await engine(connectStatus(this.ctx, view));
    return {
      origin,
      tools: all.map((s) => {
        const tool = toolById(s.tool);
        const key = s.keyName === null ? undefined : liveKey(this.g, s.keyName);
        const about = { aliases: [...tool.aliases], command: tool.command, smallModelSetting: tool.smallModel };
        return {
          ...s,
          ...about,
          keyLast4: key?.last4 ?? null,
          suggested: this.suggest(tool, key?.group ?? DEFAULT_GROUP),
        };
      }),
    };
  }

  connect(toolId: string, body: ConnectBody): Promise<ConnectView> {
    const tool = known(toolId);
    return this.serial(tool.id, async () => {
      const keyName = body.key ?? tool.id;
      const existing = liveKey(this.g, keyName);
      const models = chooseModels(this.g, {
        who: tool.name,
        vendor: tool.vendor,
        smallModelSetting: tool.smallModel,
        group: existing?.group ?? DEFAULT_GROUP,
        model: body.model,
        smallModel: body.smallModel,
      });
      const found = existing ? await this.secretOf(existing) : null;
      if (existing && found === null && body.rotateKey !== true) {
        throw new AdminError(
          409,
          'key_exists',
          `A key named "${keyName}" already exists, and Tollgate keeps only its hash, so it cannot write its secret into ${tool.name}'s files. Connect with another key name (--key NAME), or give "${keyName}" a new secret (--rotate-key; whatever uses the old one stops working).`,
        );
      }
      const action = !existing ? 'create' : found !== null ? 'reuse' : 'rotate';
      const wiring = (secret: string): Wiring => ({
        origin: this.origin(),
        secret,
        model: models.model,
        smallModel: models.smallModel ?? undefined,
      });
      const notes = this.notesFor(tool, keyName, existing, await readRecord(this.g.dataDir, tool.id));
      if (body.dryRun === true) {
        const shownAs =
          action === 'create'
            ? `<new key ${keyName}>`
            : action === 'rotate'
              ? `<new secret of key ${keyName}>`
              : undefined;
        const plan = await engine(
          planConnect(
            this.ctx,
            tool.id,
            wiring(found ?? generateSecret()),
            shownAs === undefined ? {} : { secretShownAs: shownAs },
          ),
        );
        return view(tool, plan, {
          dryRun: true,
          origin: this.origin(),
          key: { name: keyName, action, last4: found?.slice(-4) ?? null },
          models,
          notes,
          backups: {},
        });
      }
      // A broken file is refused before any key is made or changed.
      await engine(planConnect(this.ctx, tool.id, wiring(generateSecret())));
      const key = await this.obtainKey(action, keyName, found, tool.id);
      try {
        const { plan, record } = await engine(
          connectTool(this.ctx, {
            tool: tool.id,
            wiring: wiring(key.secret),
            keyName,
            keyCreated: action === 'create',
            ...(body.expect ? { expect: body.expect } : {}),
          }),
        );
        const backups = Object.fromEntries(record.files.map((f) => [f.id, f.backup]));
        return view(tool, plan, {
          dryRun: false,
          origin: this.origin(),
          key: { name: keyName, action, last4: key.secret.slice(-4) },
          models,
          notes,
          backups,
        });
      } catch (e) {
        await key.undo();
        throw e;
      }
    });
  }

  disconnect(toolId: string, query: DisconnectQuery): Promise<DisconnectView> {
    const tool = known(toolId);
    return this.serial(tool.id, async () => {
      const record = await readRecord(this.g.dataDir, tool.id);
      const result = await engine(disconnectTool(this.ctx, tool.id, { force: query.force === true }));
      const others = (await listRecords(this.g.dataDir))
        .filter((r) => r.keyName === result.keyName)
        .map((r) => toolById(r.tool).name);
      const kept = (reason: string): DisconnectView['key'] => ({ name: result.keyName, action: 'kept', reason });
      let key: DisconnectView['key'];
      if (query.keepKey === true) key = kept('asked to keep it');
      else if (record?.keyCreated !== true) key = kept(`connect did not create it for ${tool.name}`);
      else if (others.length > 0) key = kept(`${others.join(' and ')} still use${others.length === 1 ? 's' : ''} it`);
      else if (!liveKey(this.g, result.keyName))
        key = { name: result.keyName, action: 'deleted', reason: 'it had been deleted already' };
      else {
        await setKeyState(this.g, result.keyName, 'deleted');
        key = {
          name: result.keyName,
          action: 'deleted',
          reason: `it was made for ${tool.name}, and no file Tollgate wrote holds it any more`,
        };
      }
      return { tool: tool.id, name: tool.name, key, files: result.files };
    });
  }

  snippets(query: SnippetsQuery): SnippetsView {
    const origin = this.origin();
    const { model } = chooseModels(this.g, {
      who: 'the snippets',
      smallModelSetting: false,
      group: DEFAULT_GROUP,
      model: query.model,
    });
    return { origin, model, snippets: snippets({ origin, model }) };
  }

  async env(targetId: string, body: EnvBody): Promise<EnvView> {
    const target = envTarget(targetId);
    if (target === undefined)
      throw new AdminError(
        404,
        'unknown_tool',
        `No environment for "${targetId}". Choose one of: ${ENV_TARGETS.join(', ')} (or the aliases claude, gemini).`,
      );
    const tool = findTool(target);
    const record = tool ? await readRecord(this.g.dataDir, tool.id) : undefined;
    const who = tool?.name ?? target;
    const choose = (group: string): { model: string; smallModel: string | null } =>
      chooseModels(this.g, {
        who,
        vendor: tool?.vendor ?? SDK_VENDOR[target],
        smallModelSetting: tool?.smallModel ?? false,
        group,
        model: body.model,
      });
    const exports = (secret: string, m: { model: string; smallModel: string | null }): string =>
      engineSync(() =>
        shellExports(
          target,
          { origin: this.origin(), secret, model: m.model, smallModel: m.smallModel ?? undefined },
          secret === NO_SECRET ? { secretFromVar: 'TOLLGATE_KEY' } : {},
        ),
      );
    if (body.key !== undefined && body.newKey !== true)
      throw new AdminError(
        400,
        'invalid_request',
        'A key name goes with newKey: the key a connected tool uses is the one it was connected with.',
      );
    if (body.newKey === true) {
      const name = body.key ?? target;
      const models = choose(liveKey(this.g, name)?.group ?? DEFAULT_GROUP);
      const created = await createKey(this.g, { name }, tool?.id);
      return {
        target,
        keySource: 'created',
        keyName: name,
        model: models.model,
        text: exports(created.secret, models),
      };
    }
    if (record && tool) {
      const key = liveKey(this.g, record.keyName);
      const secret = await keyInFiles(this.ctx, tool.id);
      if (!key || secret === null || hashSecret(secret) !== key.hash) {
        throw new AdminError(
          409,
          'key_not_in_files',
          `${tool.name}'s files no longer hold its key "${record.keyName}", so Tollgate has no secret to print. Connect it again (tollgate connect ${tool.id}), or make a new key for this shell (--new-key).`,
        );
      }
      const models =
        body.model === undefined ? { model: record.model, smallModel: record.smallModel } : choose(key.group);
      return {
        target,
        keySource: 'connected',
        keyName: record.keyName,
        model: models.model,
        text: exports(secret, models),
      };
    }
    const models = choose(DEFAULT_GROUP);
    return { target, keySource: 'variable', keyName: null, model: models.model, text: exports(NO_SECRET, models) };
  }

  /** The secret of a key, if the files of any tool hold it (one key may serve several tools). */
  private async secretOf(key: KeyRecord): Promise<string | null> {
    for (const tool of TOOLS) {
      const secret = await keyInFiles(this.ctx, tool.id);
      if (secret !== null && hashSecret(secret) === key.hash) return secret;
    }
    return null;
  }

  private async obtainKey(
    action: 'create' | 'reuse' | 'rotate',
    name: string,
    found: string | null,
    tool: string,
  ): Promise<{ secret: string; undo: () => Promise<void> }> {
    if (action === 'reuse') return { secret: found!, undo: async () => {} };
    if (action === 'rotate') return rotateSecret(this.g, name);
    const created = await createKey(this.g, { name }, tool);
    return { secret: created.secret, undo: async () => void (await setKeyState(this.g, name, 'deleted')) };
  }

  private notesFor(
    tool: ToolSpec,
    keyName: string,
    existing: KeyRecord | undefined,
    previous: { keyName: string } | undefined,
  ): string[] {
    const notes: string[] = [];
    if (existing?.state === 'disabled')
      notes.push(
        `The key "${keyName}" is disabled: ${tool.name}'s requests are refused until it is enabled (tollgate keys enable ${keyName}).`,
      );
    if (existing && expired(existing))
      notes.push(`The key "${keyName}" has expired: ${tool.name}'s requests are refused.`);
    if (previous && previous.keyName !== keyName) {
      notes.push(
        `${tool.name} used the key "${previous.keyName}" before; it is kept. Delete it (tollgate keys delete ${previous.keyName}) if nothing else uses it.`,
      );
    }
    return notes;
  }

  private suggest(tool: ToolSpec, group: string): ConnectionsView['tools'][number]['suggested'] {
    try {
      return chooseModels(this.g, { who: tool.name, vendor: tool.vendor, smallModelSetting: tool.smallModel, group });
    } catch {
      return null;
    }
  }

  /** Runs `fn` after every earlier connect or disconnect of the same tool has finished. */
  private serial<T>(tool: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.queue.get(tool) ?? Promise.resolve()).then(fn);
    this.queue.set(
      tool,
      run.catch(() => undefined),
    );
    return run;
  }
}

function view(
  tool: ToolSpec,
  plan: Awaited<ReturnType<typeof planConnect>>,
  o: {
    dryRun: boolean;
    origin: string;
    key: ConnectView['key'];
    models: { model: string; smallModel: string | null };
    notes: string[];
    backups: Record<string, string | null>;
  },
): ConnectView {
  return {
    tool: tool.id,
    name: tool.name,
    dryRun: o.dryRun,
    changes: plan.changes,
    origin: o.origin,
    key: o.key,
    model: o.models.model,
    smallModel: o.models.smallModel,
    files: plan.files.map((f) => ({
      id: f.id,
      path: f.path,
      existed: f.before !== null,
      diff: f.diff,
      backup: o.backups[f.id] ?? null,
    })),
    expect: Object.fromEntries(plan.files.map((f) => [f.id, f.beforeSha256])),
    notes: o.notes,
  };
}

function liveKey(g: Gateway, name: string): KeyRecord | undefined {
  return g.config.data.keys.find((k) => k.name === name && k.state !== 'deleted');
}

function expired(k: KeyRecord): boolean {
  return k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();
}

function known(id: string): ToolSpec {
  return engineSync(() => toolById(id));
}

/** The engine speaks GatewayError; the admin API answers AdminError with the same status, code and message. */
async function engine<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw asAdmin(e);
  }
}

function engineSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw asAdmin(e);
  }
}

function asAdmin(e: unknown): unknown {
  return e instanceof GatewayError ? new AdminError(e.status, e.code, e.message) : e;
}
