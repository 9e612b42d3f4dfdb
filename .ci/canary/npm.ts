/** The npm registry through the ordinary `npm` client: what a package's newest release is, and installing it. */
import { failure, run } from './proc.js';

export interface Release {
  version: string;
  /** The `engines.node` range the release declares, if any. */
  node?: string;
}

/** Thrown with a one-line reason the matrix shows. */
export class StepError extends Error {}

function npm(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  // No audit, no funding notes, errors only: what is left of the output is the reason for a red cell.
  return run('npm', ['--no-audit', '--no-fund', '--loglevel=error', ...args], { env, timeoutMs });
}

/** The release `spec` (`pkg@latest`, `pkg@2.1.197`) resolves to. */
export async function release(spec: string, env: NodeJS.ProcessEnv = process.env): Promise<Release> {
  const r = await npm(['view', spec, 'version', 'engines', '--json'], env, 120_000);
  if (r.code !== 0) {
    // With --json, npm puts its error on stdout as { error: { code, summary } }.
    const error = (
      JSON.parse(/^\s*\{/.test(r.stdout) ? r.stdout : 'null') as { error?: { code?: string; summary?: string } } | null
    )?.error;
    throw new StepError(
      error?.summary ? `npm view ${spec}: ${error.code ?? 'error'} ${error.summary}` : failure(`npm view ${spec}`, r),
    );
  }
  const data = JSON.parse(r.stdout || 'null') as unknown;
  // A range matching several versions answers a list, the newest last; a release without
  // `engines` answers its version alone, as a string.
  const last = Array.isArray(data) ? (data.at(-1) as unknown) : data;
  const one = (typeof last === 'string' ? { version: last } : last) as {
    version?: string;
    engines?: { node?: string };
  } | null;
  if (!one?.version) throw new StepError(`npm view ${spec}: no such version`);
  return { version: one.version, ...(one.engines?.node ? { node: one.engines.node } : {}) };
}

/** Every published version of a package. */
export async function versions(pkg: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const r = await npm(['view', pkg, 'versions', '--json'], env, 120_000);
  if (r.code !== 0) throw new StepError(failure(`npm view ${pkg} versions`, r));
  const data = JSON.parse(r.stdout || '[]') as unknown;
  return Array.isArray(data) ? data.map(String) : [String(data)];
}

/**
 * `npm install --prefix dir spec`, outside the project (its own package.json and lock stay as they
 * are). `env` decides which Node runs npm and the package's install scripts: the first `node` on PATH.
 */
export async function install(dir: string, spec: string, env: NodeJS.ProcessEnv): Promise<void> {
  const r = await npm(['install', '--prefix', dir, '--no-save', spec], env, 15 * 60_000);
  if (r.code !== 0) throw new StepError(failure(`npm install ${spec}`, r));
}
