/**
 * Small file systems for the data-dir fault tests: a tmpfs of a few hundred kilobytes (a full disk)
 * that can be remounted read-only. Mounting needs root (CI runs as root); elsewhere `mountTmpfs`
 * says why it cannot, and the tests skip with that reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  path: string;
  /** Remounts read-only (or back to read-write). */
  readOnly(on: boolean): void;
  unmount(): void;
}

/** A tmpfs of `sizeKb`, or the reason none can be mounted here. */
export function mountTmpfs(sizeKb: number): SmallDisk | string {
  if (process.platform !== 'linux') return 'a tmpfs mount needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  const path = mkdtempSync(join(tmpdir(), 'tollgate-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0700`, 'tollgate-test', path], { stdio: 'pipe' });
  } catch (err) {
    rmSync(path, { recursive: true, force: true });
    return `mount -t tmpfs failed: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  return {
    path,
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, path], { stdio: 'pipe' });
    },
    unmount() {
      execFileSync('umount', ['-l', path], { stdio: 'pipe' });
      rmSync(path, { recursive: true, force: true });
    },
  };
}
