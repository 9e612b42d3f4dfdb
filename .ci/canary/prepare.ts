/**
 * One CLI made ready: its release resolved on npm, a newer Node fetched when its `engines` ask for
 * one, the package installed into the canary's own folder (outside the project) with that Node
 * running npm and the install scripts, and the installed command run once (`--version`). Every
 * failure is kept with its stage and reason: it becomes a red row, never a skipped one.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from './clients.js';
import { needsOtherNode, nodeFor, pathWith, type NodeRuntime } from './node-runtime.js';
import { install, release, StepError } from './npm.js';
import { failure, run } from './proc.js';

export interface Prepared {
  ok: true;
  client: Client;
  version: string;
  /** The Node fetched for it; absent when this machine's Node meets its `engines`. */
  node?: NodeRuntime;
  /** The `engines.node` range of the release. */
  engines?: string;
  bin: string;
  /** What `<bin> --version` printed (first line). */
  reports: string;
  /** PATH for everything that runs the CLI: the fetched Node first, when there is one. */
  path: string;
}

export type Stage = 'resolve' | 'node' | 'install' | 'run';

export interface Unprepared {
  ok: false;
  client: Client;
  version?: string;
  engines?: string;
  node?: NodeRuntime;
  stage: Stage;
  reason: string;
}

/** `want` is a version, a range or a dist-tag (`latest`). */
export async function prepare(client: Client, want: string, root: string): Promise<Prepared | Unprepared> {
  let stage: Stage = 'resolve';
  const known: Partial<Pick<Unprepared, 'version' | 'engines' | 'node'>> = {};
  try {
    const rel = await release(`${client.pkg}@${want}`);
    known.version = rel.version;
    if (rel.node) known.engines = rel.node;
    stage = 'node';
    if (needsOtherNode(rel.node, process.version)) known.node = await nodeFor(rel.node!, root);
    const path = pathWith(known.node);
    stage = 'install';
    const dir = join(root, client.id);
    mkdirSync(dir, { recursive: true });
    await install(dir, `${client.pkg}@${rel.version}`, { ...process.env, PATH: path });
    const bin = join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${client.bin}.cmd` : client.bin);
    if (!existsSync(bin)) throw new StepError(`the package installed no ${client.bin} command`);
    stage = 'run';
    // A throw-away HOME: nothing of the user's, and nothing left behind.
    const home = join(root, `${client.id}-home`);
    mkdirSync(home, { recursive: true });
    const r = await run(bin, ['--version'], { env: { PATH: path, HOME: home }, timeoutMs: 120_000 });
    if (r.code !== 0) throw new StepError(failure(`${client.bin} --version`, r));
    const reports = r.stdout.trim().split('\n')[0] ?? '';
    return { ok: true, client, version: rel.version, ...known, bin, reports, path };
  } catch (e) {
    const reason = e instanceof StepError ? e.message : `${stage}: ${e instanceof Error ? e.message : String(e)}`;
    return { ok: false, client, ...known, stage, reason };
  }
}
