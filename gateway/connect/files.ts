import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readFile, realpath, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * File plumbing for the engine: reads that say "missing" instead of throwing, writes that are
 * atomic (a temp file in the same folder, fsync, rename) and keep the file's permission bits.
 */

export function sha256(data: string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The file's text, or null when it does not exist. */
export async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Permission bits, or null when the file does not exist. */
export async function modeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * The path to write through: a symlinked config (a dotfiles repository, say) is written at its
 * target, so the link stays a link. A path that does not exist yet is its own target.
 */
export async function writeTarget(path: string): Promise<string> {
  try {
    if ((await lstat(path)).isSymbolicLink()) return await realpath(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return path;
}

/** Writes `text` to `path` atomically with the given permission bits. */
export async function writeAtomic(path: string, text: string, mode: number): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tollgate.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // The umask may have narrowed the mode given to open(); set it exactly.
    await chmod(temp, mode);
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}

/** Creates the folder and any missing parents; returns those it created, outermost first. */
export async function makeDirs(dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let d = dir; (await modeOf(d)) === null; d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  if (missing.length > 0) await mkdir(dir, { recursive: true, mode: 0o700 });
  return missing;
}

/** Removes the folders (innermost first) that are empty; a folder with anything in it stays. */
export async function removeEmptyDirs(dirs: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const d of [...new Set(dirs)].sort((a, b) => b.length - a.length)) {
    try {
      await rmdir(d);
      removed.push(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw e;
    }
  }
  return removed;
}
