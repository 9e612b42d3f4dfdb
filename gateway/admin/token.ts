import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin-token';

/** The admin token: random per install, kept 0600 in the data dir. Deliberately not an sk- key. */
export function loadOrCreateAdminToken(dataDir: string): string {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  if (existsSync(path)) {
    chmodSync(path, 0o600);
    return readFileSync(path, 'utf8').trim();
  }
  const token = `tga_${randomBytes(32).toString('base64url')}`;
  writeFileSync(path, token + '\n', { mode: 0o600 });
  return token;
}

export function readAdminToken(dataDir: string): string | undefined {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/** Compares in constant time (hashing first makes the lengths equal). */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
