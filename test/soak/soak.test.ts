/**
 * The soak's short form for CI (test/soak/soak.ts; `npm run soak` runs minutes): seconds of mixed
 * load with faults against `tollgate serve`. Memory must not keep growing, descriptors must come
 * back once the load stops, and the ledger must be clean. Latency is printed, not asserted: the
 * long form's figures are in docs/reliability.md.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { median, soak } from './soak.js';

const SECONDS = Number(process.env.TOLLGATE_SOAK_SECONDS ?? 10);

test(
  `soak, short form: ${SECONDS} s of mixed load with faults`,
  { skip: existsSync('/proc/self/status') ? false : 'reads /proc (Linux)' },
  async (t) => {
    const r = await soak({
      durationMs: SECONDS * 1000,
      workers: 6,
      seed: Number(process.env.TOLLGATE_SEED ?? 20261124),
    });
    t.diagnostic(
      JSON.stringify({
        requests: r.requests,
        failures: r.failures,
        aborted: r.aborted,
        latency: r.latency,
        fds: [r.fdsBefore, r.fdsAfter],
        rss: r.samples.map((s) => s.rssMb),
      }),
    );
    assert.ok(r.requests > 30, `only ${r.requests} requests`);
    assert.ok(r.failures > 0 && r.aborted > 0, 'the faults and hang-ups happened');
    // Memory: the second half's median is within 100 MB of the first half's. Ten seconds is too short
    // for the heap to settle: a clean-clone CI run saw the RSS climb 281 → 344 MB before a collection
    // brought it back to 326, a 41 MB gap between the halves. A leak of a buffer per request grows
    // without end (1,000 requests × 100 KB would break the bound); the long form is the real test of
    // flat memory (docs/reliability.md).
    const half = Math.floor(r.samples.length / 2);
    const first = median(r.samples.slice(1, half).map((s) => s.rssMb));
    const second = median(r.samples.slice(half).map((s) => s.rssMb));
    assert.ok(second - first < 100, `RSS grew from ${first} MB to ${second} MB`);
    assert.ok(r.fdsAfter <= r.fdsBefore + 4, `descriptors: ${r.fdsBefore} before, ${r.fdsAfter} after`);
    assert.equal(r.heldMicro, 0);
    assert.equal(r.doctorOk, true);
  },
);
