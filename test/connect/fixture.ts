/** A temporary home and data dir for connect tests, and small file helpers. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ConnectContext, Wiring } from '../../gateway/connect/index.js';

export const SECRET = 'sk-' + 'T'.repeat(44) + 'abcd';
export const WIRING: Wiring = {
  origin: 'http://127.0.0.1:4141',
  secret: SECRET,
  model: 'claude-sonnet-4-6',
  smallModel: 'claude-haiku-4-5',
};

export interface Sandbox extends ConnectContext {
  root: string;
  write(rel: string, text: string, mode?: number): string;
  read(rel: string): string;
  mode(rel: string): number;
  path(rel: string): string;
  done(): void;
}

export function sandbox(env: Record<string, string> = {}): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'tollgate-connect-'));
  const home = join(root, 'home');
  mkdirSync(home);
  const path = (rel: string): string => join(home, rel);
  return {
    root,
    home,
    env,
    dataDir: join(root, 'data'),
    path,
    write(rel, text, mode = 0o644) {
      mkdirSync(dirname(path(rel)), { recursive: true });
      writeFileSync(path(rel), text, { mode });
      return path(rel);
    },
    read: (rel) => readFileSync(path(rel), 'utf8'),
    mode: (rel) => statSync(path(rel)).mode & 0o777,
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}
