import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './core/paths.js';

/** Tollgate's version, from package.json; a module of its own so the CLI can print it without loading the server. */
export const VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
  .version;
