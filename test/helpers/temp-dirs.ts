/** Temporary directories for a test file, all removed when the file's tests are done. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** A function that makes a new directory named `tollgate-<prefix>-…`; call at the top of a test file. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), `tollgate-${prefix}-`));
    dirs.push(d);
    return d;
  };
}
