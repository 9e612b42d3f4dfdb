/**
 * autocannon (npm), run in the bench's own process. Its latency histogram stores whole milliseconds, too coarse
 * for a 1.5 ms budget, so latencies are recorded here from its per-response events, which carry fractions.
 */
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { Samples } from '../stats.js';
import type { LoadGenerator, LoadResult, LoadSpec } from './types.js';

const version = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;

export const autocannonGenerator: LoadGenerator = {
  name: `autocannon ${version}`,
  async run(spec: LoadSpec): Promise<LoadResult> {
    const latencies = new Samples();
    let requests = 0;
    const instance = autocannon({
      url: spec.url,
      method: 'POST',
      headers: spec.headers,
      body: spec.body,
      connections: spec.connections,
      pipelining: 1,
      duration: spec.durationS,
      timeout: 10,
    });
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      requests++;
      if (status >= 200 && status < 300) latencies.push(ms);
    });
    const result = await instance;
    return {
      requests,
      non2xx: result.non2xx,
      errors: result.errors,
      elapsedS: result.duration,
      rps: requests / result.duration,
      latencyMs: latencies.percentiles(),
    };
  },
};
