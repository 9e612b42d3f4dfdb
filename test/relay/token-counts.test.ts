/**
 * Token counts clients ask for (relay/token-counts.ts): through the key's rpm and maxConcurrent,
 * counted in the status, bounded per key, and in a queue of their own in the token-counting thread,
 * which takes turns with billing's, so that billing's counts never wait behind them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { countTokens } from '../../gateway/core/tokenizer.js';
import { ClientTokenCounts, MAX_CHARS_PER_KEY_MINUTE } from '../../gateway/relay/token-counts.js';
import { KeyLimits } from '../../gateway/routing/key-limits.js';
import type { KeyRecord } from '../../gateway/store/types.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  for (const [name, protocol, model, baseUrl] of [
    ['messages', 'anthropic', 'claude-haiku-4-5', scenarioOrigin(mock, '')],
    ['gemini', 'gemini', 'gemini-2.5-flash', scenarioOrigin(mock, '')],
    // No usage in the answer: its settlement needs a tokenizer count of what was produced.
    ['chat', 'openai-chat', 'gpt-4.1-mini', scenarioBase(mock, 'no-usage,words=40')],
  ] as const)
    await gw.admin.line({ name, protocol, baseUrl, models: [model] });
});

after(async () => {
  await gw.close();
  await mock.close();
});

const count = (key: string, text: string) =>
  fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: text }] }),
  });

const geminiCount = (key: string) =>
  fetch(`${gw.url}/v1beta/models/gemini-2.5-flash:countTokens`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }),
  });

test("count_tokens takes a place in the key's rpm, in its own protocol's 429, and is counted in the status", async () => {
  const key = await gw.admin.key('one-a-minute', { rpm: 1 });
  const before = (await gw.admin.client.call('getStatus')).tokenCounts!;
  const first = await count(key, 'hello there');
  assert.equal(first.status, 200);
  const second = await count(key, 'hello again');
  assert.equal(second.status, 429);
  assert.equal(((await second.json()) as { error: { type: string } }).error.type, 'rate_limit_error');
  assert.ok(Number(second.headers.get('retry-after')) >= 1);
  const gemini = await geminiCount(key);
  assert.equal(gemini.status, 429, 'Gemini countTokens too');
  assert.equal(((await gemini.json()) as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
  const after = (await gw.admin.client.call('getStatus')).tokenCounts!;
  assert.deepEqual([after.answered - before.answered, after.refused - before.refused], [1, 2]);
});

test("count_tokens takes a place in the key's maxConcurrent", async () => {
  const key = await gw.admin.key('one-at-a-time', { maxConcurrent: 1 });
  const big = 'lorem ipsum dolor sit amet '.repeat(80_000);
  const statuses = await Promise.all(Array.from({ length: 6 }, () => count(key, big).then((r) => r.status)));
  assert.ok(statuses.includes(200), statuses.join());
  assert.ok(statuses.includes(429), `a count beyond maxConcurrent is refused: ${statuses.join()}`);
});

test("billing's counts never wait behind a client's counts", async () => {
  // The thread started and its tables loaded, so that what is measured is the queues.
  await countTokens('warm');
  // Eight keys of five counts each: within each key's characters a minute.
  const counters = await Promise.all(Array.from({ length: 8 }, (_, i) => gw.admin.key(`big-counter-${i}`)));
  assert.equal((await count(counters[0]!, 'warm')).status, 200);
  const other = await gw.admin.key('ordinary');
  const big = 'The quick brown fox jumps over the lazy dog 12345. '.repeat(9_600);
  let countsDone = 0;
  const counts = Array.from({ length: 40 }, (_, i) =>
    count(counters[i % 8]!, big).then(async (r) => {
      await r.text();
      countsDone++;
      return r.status;
    }),
  );
  await new Promise((r) => setTimeout(r, 300));
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  await res.text();
  const doneWhenAnswered = countsDone;
  assert.ok(doneWhenAnswered < 30, `the ordinary request was settled after ${doneWhenAnswered} of 40 counts`);
  assert.deepEqual(await Promise.all(counts), Array(40).fill(200));
  const row = (await gw.admin.logs({ key: 'ordinary' }))[0]!;
  assert.equal(row.usageEstimated, true, 'its output was counted by billing');
});

test('the characters counted per key and minute are bounded', async () => {
  let now = 1_000_000;
  const counts = new ClientTokenCounts(new KeyLimits(), () => now);
  const key = { id: 'k', name: 'k' } as KeyRecord;
  const chunk = 'x'.repeat(MAX_CHARS_PER_KEY_MINUTE / 2);
  await counts.run(key, (c) => c(chunk));
  await counts.run(key, (c) => c(chunk));
  await assert.rejects(
    counts.run(key, (c) => c('one more')),
    (err: { code?: string; status?: number }) => err.code === 'count_limit_reached' && err.status === 429,
  );
  assert.equal(counts.refused, 1);
  now += 60_000;
  await counts.run(key, (c) => c('a new minute'));
  assert.equal(counts.answered, 3);
});
