import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written by a running `tollgate serve` so that the CLI finds it from the data dir alone. */
export interface RuntimeInfo {
  url: string;
  pid: number;
  startedAt: string;
}

const FILE = 'gateway.json';

export function writeRuntime(dataDir: string, info: RuntimeInfo): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
}

export function readRuntime(dataDir: string): RuntimeInfo | undefined {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

export function removeRuntime(dataDir: string, pid: number): void {
  if (readRuntime(dataDir)?.pid === pid) rmSync(join(dataDir, FILE), { force: true });
}
