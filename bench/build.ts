/**
 * How to start `tollgate serve`: the compiled CLI in dist/ (what users run), rebuilt first when any gateway
 * source is newer than its output; the TypeScript sources through tsx only if the build fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { REPO } from './processes.js';

export interface GatewayCommand {
  /** Arguments to `node` before the CLI's own (`serve …`). */
  nodeArgs: string[];
  /** `dist` or `tsx`, with why, for the report. */
  description: string;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
      out.push(path);
  }
  return out;
}

/** A source whose dist/…/.js is missing or older than it, or undefined when dist is current. */
function staleSource(): string | undefined {
  for (const src of sources(join(REPO, 'gateway'))) {
    const out = join(REPO, 'dist', relative(REPO, src).replace(/\.ts$/, '.js'));
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs) return relative(REPO, src);
  }
  return undefined;
}

/**
 * `tollgate serve` from this repository's dist/, or from `otherBuild`'s (another checkout, already built: an
 * A/B comparison of two builds with the same bench, see docs/performance.md).
 */
export function gatewayCommand(log: (line: string) => void, otherBuild?: string): GatewayCommand {
  if (otherBuild !== undefined) {
    const other = resolve(otherBuild, 'dist/gateway/cli/main.js');
    if (!existsSync(other)) throw new Error(`--gateway-dir: ${other} does not exist; build that checkout first`);
    return { nodeArgs: [other], description: `${other} (another build)` };
  }
  const cli = join(REPO, 'dist/gateway/cli/main.js');
  const stale = staleSource();
  if (stale === undefined && existsSync(cli))
    return { nodeArgs: [cli], description: 'dist/gateway/cli/main.js (compiled)' };
  log(`dist/ is missing or older than ${stale ?? 'the sources'}: running npm run build…`);
  const build = spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (build.status === 0 && existsSync(cli))
    return { nodeArgs: [cli], description: 'dist/gateway/cli/main.js (rebuilt for this run)' };
  log(
    `npm run build failed (${build.status}); running the sources through tsx instead:\n${(build.stdout + build.stderr).slice(-2000)}`,
  );
  return {
    nodeArgs: ['--import', 'tsx', join(REPO, 'gateway/cli/main.ts')],
    description: 'gateway/cli/main.ts through tsx (build failed)',
  };
}
