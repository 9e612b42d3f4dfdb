import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import v8 from 'node:v8';
import { boundOldGeneration, overBound, OLD_GENERATION_SLACK_BYTES } from '../../gateway/core/old-generation.js';
import { fullCollection } from '../../gateway/core/full-gc.js';

const MB = 2 ** 20;
const oldUsed = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

test('the bound is the last full collection’s survivors plus the slack', () => {
  assert.equal(overBound(30 * MB, 20 * MB, 12 * MB), false);
  assert.equal(overBound(32 * MB, 20 * MB, 12 * MB), false);
  assert.equal(overBound(32 * MB + 1, 20 * MB, 12 * MB), true);
  assert.ok(OLD_GENERATION_SLACK_BYTES >= 8 * MB, 'a slack that small would collect for every few thousand requests');
});

/**
 * Mid-lived garbage, as request state under load: each object is held across a few scavenges (a
 * ring of the last `held`), so it is promoted, then dropped. The loop yields between batches, as a
 * server does between requests, so the observer and the collection it asks for can run.
 */
async function promoteGarbage(totalMb: number, onBatch: () => void): Promise<void> {
  const held = 40_000;
  const ring: unknown[] = new Array(held);
  let i = 0;
  const objects = Math.round((totalMb * MB) / 200);
  while (i < objects) {
    for (let n = 0; n < 20_000; n++, i++)
      ring[i % held] = { id: i, text: `request ${i} `.repeat(4), parts: [i, i + 1] };
    onBatch();
    await tick();
  }
}

test('under a run of promoted garbage the old space stays near the bound, and full collections are asked for', async () => {
  fullCollection();
  const base = oldUsed();
  const slack = 8 * MB;
  const bound = boundOldGeneration(slack);
  let peak = 0;
  try {
    await promoteGarbage(400, () => (peak = Math.max(peak, oldUsed())));
  } finally {
    bound.stop();
  }
  assert.ok(bound.requested > 0, 'no full collection was asked for');
  // The ring itself (about 10 MB live) and one batch promoted while the asked-for collection waits its task.
  const margin = 24 * MB;
  assert.ok(
    peak <= base + slack + margin,
    `old space reached ${(peak / MB).toFixed(1)} MB used over a base of ${(base / MB).toFixed(1)} MB`,
  );
});

test('stop() leaves collections to V8', async () => {
  fullCollection();
  const bound = boundOldGeneration(1 * MB);
  bound.stop();
  await promoteGarbage(60, () => undefined);
  assert.equal(bound.requested, 0);
});
