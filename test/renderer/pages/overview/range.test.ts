/**
 * The Overview's windows and series on plain data: which buckets a range has, where a stats row
 * lands (an hour's grace for days cut an hour off across a DST change), and the five largest groups
 * with the rest as "other".
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StatsRowView } from '../../../../gateway/contract/admin/index.js';
import { METRICS, OTHER, toSeries } from '../../../../renderer/pages/overview/metrics.js';
import { bucketIndex, DAY, HOUR, midnight, parseDay, windowOf } from '../../../../renderer/pages/overview/range.js';

const NOW = new Date(2026, 10, 27, 14, 25).getTime();

function row(start: number, group: string | null, costMicro: number): StatsRowView {
  return {
    start,
    group,
    requests: 1,
    errors: 0,
    costMicro,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

describe('Overview windows', () => {
  test('24 h is the last 24 whole hours up to the one under way, by the hour', () => {
    const w = windowOf('24h', NOW)!;
    assert.equal(w.bucket, 'hour');
    assert.equal(w.starts.length, 24);
    assert.equal(w.until, new Date(2026, 10, 27, 15).getTime());
    assert.equal(w.since, w.until - 24 * HOUR);
  });

  test('7 and 30 days are whole local days ending today', () => {
    const w = windowOf('7d', NOW)!;
    assert.deepEqual([w.bucket, w.starts.length], ['day', 7]);
    assert.equal(w.since, new Date(2026, 10, 21).getTime());
    assert.equal(w.until, new Date(2026, 10, 28).getTime());
    assert.equal(windowOf('30d', NOW)!.starts.length, 30);
  });

  test('a custom span is hourly up to three days, daily beyond, and refused reversed or too long', () => {
    const day = (t: string) => parseDay(t)!;
    const one = windowOf('custom', NOW, day('2026-11-20'), day('2026-11-20'))!;
    assert.deepEqual([one.bucket, one.starts.length, one.label], ['hour', 24, '2026-11-20']);
    const ten = windowOf('custom', NOW, day('2026-11-01'), day('2026-11-10'))!;
    assert.deepEqual([ten.bucket, ten.starts.length], ['day', 10]);
    assert.equal(windowOf('custom', NOW, day('2026-11-10'), day('2026-11-01')), undefined);
    assert.equal(windowOf('custom', NOW, day('2024-01-01'), day('2026-11-01')), undefined);
    assert.equal(windowOf('custom', NOW, undefined, day('2026-11-01')), undefined);
    assert.equal(parseDay('2026-02-30'), undefined);
    assert.equal(parseDay('yesterday'), undefined);
  });

  test('a row lands in its bucket, and a day cut an hour early or late still lands on its day', () => {
    const w = windowOf('7d', NOW)!;
    assert.equal(bucketIndex(w, w.starts[3]!), 3);
    assert.equal(bucketIndex(w, w.starts[3]! - HOUR), 3);
    assert.equal(bucketIndex(w, w.starts[3]! + HOUR), 3);
    assert.equal(bucketIndex(w, w.since - DAY), -1);
    const h = windowOf('24h', NOW)!;
    assert.equal(bucketIndex(h, h.starts[5]!), 5);
    assert.equal(midnight(NOW, 1), w.until);
  });
});

describe('Overview series', () => {
  test('the five largest groups by the metric, the rest summed as other, each per bucket', () => {
    const w = windowOf('7d', NOW)!;
    const rows = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].flatMap((g, i) => [
      row(w.starts[0]!, g, (i + 1) * 100),
      row(w.starts[6]!, g, (i + 1) * 10),
    ]);
    rows.push(row(w.starts[2]!, null, 5));
    const series = toSeries(rows, w, METRICS.spend, 'key');
    assert.deepEqual(
      series.map((s) => s.label),
      ['g', 'f', 'e', 'd', 'c', 'other'],
    );
    const other = series.find((s) => s.group === OTHER)!;
    // a, b and the row without a key: 100 + 200 + 10 + 20 + 5.
    assert.equal(other.total.costMicro, 335);
    assert.equal(other.buckets[2]!.costMicro, 5);
    assert.equal(series[0]!.buckets[6]!.costMicro, 70);
    // Six groups in all are drawn as six, with no "other" of one.
    assert.equal(toSeries(rows.slice(0, 12), w, METRICS.spend, 'key').length, 6);
    assert.ok(toSeries(rows.slice(0, 12), w, METRICS.spend, 'key').every((s) => s.group !== OTHER));
  });
});
