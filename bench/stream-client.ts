/**
 * The streaming load: `connections` keep-alive connections (undici), each sending one streaming request after
 * another for the duration, timing the first body byte (TTFB) and the end of the stream, and checking that each
 * stream ends with its protocol's terminator. Load generators report neither, hence this small client.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { Samples, type Percentiles } from './stats.js';

export interface StreamSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationS: number;
  /** Text a complete stream contains, e.g. `data: [DONE]`. */
  terminator: string;
}

export interface StreamResult {
  /** Streams whose response began (any status). */
  requests: number;
  non2xx: number;
  /** Requests that failed before a response began: refused or reset connections, timeouts. */
  errors: number;
  /** 2xx streams that were cut off or ended without the terminator. */
  incomplete: number;
  elapsedS: number;
  /** Complete streams per second. */
  rps: number;
  ttfbMs: Percentiles | undefined;
  totalMs: Percentiles | undefined;
  /** The first few failures, for the report. */
  failures: string[];
}

export async function runStreams(spec: StreamSpec): Promise<StreamResult> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, {
    connections: spec.connections,
    pipelining: 1,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const ttfb = new Samples();
  const total = new Samples();
  const failures: string[] = [];
  const fail = (what: string): void => {
    if (failures.length < 5) failures.push(what);
  };
  let requests = 0;
  let non2xx = 0;
  let errors = 0;
  let incomplete = 0;
  let complete = 0;

  const start = performance.now();
  const deadline = start + spec.durationS * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      let res;
      try {
        res = await pool.request({
          path: url.pathname + url.search,
          method: 'POST',
          headers: spec.headers,
          body: spec.body,
        });
      } catch (err) {
        errors++;
        fail(`request: ${(err as Error).message}`);
        await sleep(10); // a refused connection fails at once: don't spin
        continue;
      }
      requests++;
      if (res.statusCode < 200 || res.statusCode >= 300) {
        non2xx++;
        fail(`status ${res.statusCode}: ${(await res.body.text().catch(() => '')).slice(0, 200)}`);
        continue;
      }
      let first = true;
      let text = '';
      try {
        for await (const chunk of res.body) {
          if (first) {
            ttfb.push(performance.now() - t0);
            first = false;
          }
          text += (chunk as Buffer).toString('latin1');
        }
      } catch (err) {
        incomplete++;
        fail(`stream cut: ${(err as Error).message}`);
        continue;
      }
      if (!text.includes(spec.terminator)) {
        incomplete++;
        fail(`stream ended without "${spec.terminator}": …${text.slice(-200)}`);
        continue;
      }
      total.push(performance.now() - t0);
      complete++;
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));
  const elapsedS = (performance.now() - start) / 1000;
  await pool.close();
  return {
    requests,
    non2xx,
    errors,
    incomplete,
    elapsedS,
    rps: complete / elapsedS,
    ttfbMs: ttfb.percentiles(),
    totalMs: total.percentiles(),
    failures,
  };
}
