/** Picks the load generator for non-streaming cells: wrk when installed (or asked for), else autocannon. */
import type { LoadGeneratorChoice } from '../options.js';
import { autocannonGenerator } from './autocannon.js';
import type { LoadGenerator } from './types.js';
import { wrkGenerator, wrkVersion } from './wrk.js';

export type { LoadGenerator, LoadResult, LoadSpec } from './types.js';

export function pickLoadGenerator(choice: LoadGeneratorChoice): LoadGenerator {
  if (choice === 'autocannon') return autocannonGenerator;
  const wrk = wrkVersion();
  if (wrk) return wrkGenerator(wrk);
  if (choice === 'wrk')
    throw new Error('--loadgen wrk: wrk is not installed (apt-get install wrk), or use --loadgen autocannon.');
  return autocannonGenerator;
}
