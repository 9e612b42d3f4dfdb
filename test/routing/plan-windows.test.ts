import assert from 'node:assert/strict';
import { test } from 'node:test';
import { durationMs, PlanWindows, rateLimitHeaders, windowsOf } from '../../gateway/routing/plan-windows.js';

test('only rate-limit headers are kept, names in lower case', () => {
  assert.deepEqual(
    rateLimitHeaders({
      'X-RateLimit-Limit-Requests': '5',
      'content-type': 'x',
      'anthropic-ratelimit-tokens-limit': '9',
    }),
    { 'x-ratelimit-limit-requests': '5', 'anthropic-ratelimit-tokens-limit': '9' },
  );
});

test('an answer without rate-limit headers gives an empty set that cannot be written to, and none are missed', () => {
  const none = rateLimitHeaders({ 'content-type': 'x', 'x-request-id': 'r', 'Anthropic-Version': 'v', etag: 'e' });
  assert.deepEqual(none, {});
  assert.ok(Object.isFrozen(none));
  assert.deepEqual(rateLimitHeaders({ 'ANTHROPIC-RATELIMIT-REQUESTS-LIMIT': ['1', '2'], 'x-ratelimit-x': undefined }), {
    'anthropic-ratelimit-requests-limit': '1, 2',
  });
});

test("OpenAI's reset durations", () => {
  assert.equal(durationMs('6m0s'), 360_000);
  assert.equal(durationMs('1h2m3.5s'), 3_723_500);
  assert.equal(durationMs('120ms'), 120);
  assert.ok(Number.isNaN(durationMs('soon')));
});

test("Anthropic's per-kind limits read as windows, reset as a date", () => {
  const w = windowsOf(
    {
      'anthropic-ratelimit-tokens-limit': '1000',
      'anthropic-ratelimit-tokens-remaining': '250',
      'anthropic-ratelimit-tokens-reset': '2026-11-27T12:00:00Z',
    },
    0,
  );
  assert.deepEqual(w, [{ name: 'tokens', utilization: 0.75, resetsAt: '2026-11-27T12:00:00.000Z', status: null }]);
});

test('an answer without rate-limit headers keeps what the line had', () => {
  const p = new PlanWindows();
  p.record('l', { 'anthropic-ratelimit-unified-5h-utilization': '0.5' }, 0);
  p.record('l', { 'content-type': 'application/json' }, 1);
  assert.equal(p.view('l')?.windows[0]?.utilization, 0.5);
  assert.equal(p.view('other'), null);
});
