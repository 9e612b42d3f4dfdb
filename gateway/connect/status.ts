import { GatewayError } from '../core/errors.js';
import { readText, sha256, writeTarget } from './files.js';
import { FORMATS, valueAt } from './formats/index.js';
import { readRecord } from './records.js';
import { entrySlots, TOOLS } from './tools.js';
import type { ConnectContext, ConnectRecord, EntryRole, ToolId, ToolSpec } from './types.js';

/** What the gateway knows that the files do not: where it runs, its keys, the models its lines serve. */
export interface GatewayView {
  origin: string;
  keys: ReadonlyArray<{ name: string; state: string; hash: string }>;
  models: readonly string[];
}

/**
 * `as-written`: as Tollgate left it; `changed` since; `missing` (deleted since); `invalid` (does not
 * parse); `present`: a file of a tool Tollgate has not connected.
 */
export type FileState = 'as-written' | 'changed' | 'missing' | 'invalid' | 'present';

export interface ToolStatus {
  tool: ToolId;
  name: string;
  /** Connected by Tollgate (a record exists). */
  connected: boolean;
  keyName: string | null;
  model: string | null;
  smallModel: string | null;
  connectedAt: string | null;
  /** The base URL the tool's files hold now (connected or not), or null. */
  baseUrl: string | null;
  /** Whether that base URL is this gateway's. */
  pointsAtTollgate: boolean;
  files: Array<{ path: string; state: FileState }>;
  /** Connected, and every check below passed. */
  matches: boolean;
  /** What no longer matches, in words, one item per problem. Never holds a secret. */
  problems: string[];
}

/**
 * Which tools point at Tollgate and whether the wiring still holds: the files (changed, missing,
 * entries replaced by hand) and, given a view of the gateway, the key (deleted, disabled, not the
 * key in the file), the models (no longer served) and the gateway's own URL.
 */
export async function connectStatus(ctx: ConnectContext, view?: GatewayView): Promise<ToolStatus[]> {
  const out: ToolStatus[] = [];
  for (const tool of TOOLS) out.push(await toolStatus(ctx, tool, view));
  return out;
}

async function toolStatus(ctx: ConnectContext, tool: ToolSpec, view: GatewayView | undefined): Promise<ToolStatus> {
  const record = await readRecord(ctx.dataDir, tool.id);
  const problems: string[] = [];
  const files: ToolStatus['files'] = [];
  const values = new Map<string, unknown>();
  for (const file of tool.files) {
    const path = file.locate(ctx);
    const text = await readText(await writeTarget(path));
    const recorded = record?.files.find((f) => f.id === file.id);
    let state: FileState = record ? 'as-written' : 'present';
    if (text === null) state = 'missing';
    else if (recorded && sha256(text) !== recorded.afterSha256) state = 'changed';
    if (text !== null) {
      try {
        const doc = FORMATS[file.format].read(text, path);
        // The recorded paths as well: some depend on the model (OpenCode's `models.<id>`).
        const paths = [
          ...entrySlots(tool)
            .filter((e) => e.file === file.id)
            .map((e) => e.path),
          ...(recorded?.entries.map((e) => e.path) ?? []),
        ];
        for (const p of paths) values.set(key(file.id, p), valueAt(doc, p));
      } catch (e) {
        state = 'invalid';
        if (record)
          problems.push(e instanceof GatewayError ? e.message.replace(/ Tollgate changed nothing.*$/, '') : String(e));
      }
    }
    if (record) {
      if (state === 'missing') problems.push(`${path} was deleted since connect`);
      files.push({ path, state });
    } else if (text !== null) {
      files.push({ path, state });
    }
  }
  const baseUrlEntry = entrySlots(tool).find((e) => e.role === 'base-url')!;
  const baseUrl = values.get(key(baseUrlEntry.file, baseUrlEntry.path));
  const origin = view?.origin ?? record?.origin;
  const expectedBase =
    origin === undefined ? undefined : entrySlots(tool, origin).find((e) => e.role === 'base-url')!.value;
  if (record) checkEntries(record, tool, values, problems);
  if (record && view) checkGateway(record, tool, view, problems);
  return {
    tool: tool.id,
    name: tool.name,
    connected: record !== undefined,
    keyName: record?.keyName ?? null,
    model: record?.model ?? null,
    smallModel: record?.smallModel ?? null,
    connectedAt: record?.connectedAt ?? null,
    baseUrl: typeof baseUrl === 'string' ? baseUrl : null,
    pointsAtTollgate: typeof baseUrl === 'string' && expectedBase !== undefined && sameUrl(baseUrl, expectedBase),
    files,
    matches: record !== undefined && problems.length === 0,
    problems,
  };
}

const key = (file: string, path: readonly string[]): string => `${file}\u0000${path.join('\u0000')}`;

const WHAT: Record<EntryRole, string> = {
  'base-url': 'the base URL',
  key: 'the key',
  model: 'the model',
  'small-model': 'the small/fast model',
  setting: 'a setting',
};

function checkEntries(record: ConnectRecord, tool: ToolSpec, values: Map<string, unknown>, problems: string[]): void {
  for (const file of record.files) {
    const spec = tool.files.find((f) => f.id === file.id);
    if (!spec) continue;
    for (const entry of file.entries) {
      const k = key(file.id, entry.path);
      if (!values.has(k)) continue;
      const now = values.get(k);
      const name = entry.path.join('.');
      if (now === undefined) problems.push(`${WHAT[entry.role]} (${name}) was removed from ${file.path}`);
      else if (sha256(typeof now === 'string' ? now : JSON.stringify(now)) !== entry.sha256) {
        problems.push(
          `${WHAT[entry.role]} (${name}) in ${file.path} was changed by hand${entry.role === 'key' ? '' : ` to ${JSON.stringify(now)}`}`,
        );
      }
    }
  }
}

function checkGateway(record: ConnectRecord, tool: ToolSpec, view: GatewayView, problems: string[]): void {
  if (!sameUrl(record.origin, view.origin))
    problems.push(`${tool.name} points at ${record.origin}, but Tollgate now runs at ${view.origin}: connect again`);
  const keyRecord = view.keys.find((k) => k.name === record.keyName);
  if (!keyRecord || keyRecord.state === 'deleted')
    problems.push(`the key "${record.keyName}" was deleted: connect again to get a new one`);
  else {
    if (keyRecord.state !== 'enabled') problems.push(`the key "${record.keyName}" is ${keyRecord.state}`);
    const written = record.files.flatMap((f) => f.entries).find((e) => e.role === 'key');
    if (written && written.sha256 !== keyRecord.hash)
      problems.push(
        `the key written to ${tool.name}'s files is not the key "${record.keyName}" any more: connect again`,
      );
  }
  const served = new Set(view.models);
  if (!served.has(record.model)) problems.push(`the model ${record.model} is not served by any line now`);
  if (
    tool.smallModel &&
    record.smallModel !== null &&
    record.smallModel !== record.model &&
    !served.has(record.smallModel)
  ) {
    problems.push(`the small/fast model ${record.smallModel} is not served by any line now`);
  }
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
