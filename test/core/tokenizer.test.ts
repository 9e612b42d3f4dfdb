/** core/tokenizer.ts and core/token-chunks.ts: token counts off the main thread, linear in the text, capped, abandoned on a hang-up. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens as countWhole } from 'gpt-tokenizer';
import { CHUNK_CHARS, chunks, countInChunks, MAX_COUNTED_CHARS, sample } from '../../gateway/core/token-chunks.js';
import { countClientTokens } from '../../gateway/core/client-tokenizer.js';
import {
  countTokens,
  setTokenizerIdleMs,
  TOKENIZER_IDLE_MS,
  tokenizerLoaded,
  tokenizerThreadId,
} from '../../gateway/core/tokenizer.js';

const PROSE = 'The quick brown fox jumps over the lazy dog, then writes some code:\n  const x = [1, 2, 3];\n';

test('chunks are at most CHUNK_CHARS, cut before whitespace where there is some, never inside a surrogate pair, and lose nothing', () => {
  const text = PROSE.repeat(200) + 'a'.repeat(3 * CHUNK_CHARS + 7) + '🙂'.repeat(CHUNK_CHARS);
  const parts = [...chunks(text)];
  assert.equal(parts.join(''), text);
  for (const p of parts) {
    assert.ok(p.length > 0 && p.length <= CHUNK_CHARS, `a chunk of ${p.length}`);
    assert.ok(!/^[\udc00-\udfff]/.test(p) && !/[\ud800-\udbff]$/.test(p), 'a surrogate pair cut in two');
  }
  const prose = parts.filter((p) => p.startsWith(' ') || p.startsWith('\n'));
  assert.ok(prose.length > 10, 'prose is cut before a space or a line break');
});

test('counting in chunks gives the count of the whole text, for prose', () => {
  const text = PROSE.repeat(500);
  const whole = countWhole(text);
  const chunked = countInChunks(text, countWhole)!;
  assert.ok(Math.abs(chunked - whole) <= whole * 0.005, `${chunked} in chunks, ${whole} whole`);
});

test('a count stops between two chunks once it is no longer wanted', () => {
  let asked = 0;
  const n = countInChunks(
    'word '.repeat(10 * CHUNK_CHARS),
    (c) => c.length,
    () => ++asked > 3,
  );
  assert.equal(n, undefined);
  assert.equal(asked, 4);
});

test('beyond MAX_COUNTED_CHARS, evenly spread samples of MAX_COUNTED_CHARS in all are counted and scaled up', () => {
  const text = 'x'.repeat(MAX_COUNTED_CHARS * 10);
  const { parts, scale } = sample(text);
  const sampled = parts.reduce((n, p) => n + p.length, 0);
  assert.ok(sampled <= MAX_COUNTED_CHARS && sampled > MAX_COUNTED_CHARS * 0.99);
  assert.ok(Math.abs(scale * sampled - text.length) < 1);
  assert.deepEqual(sample('short'), { parts: ['short'], scale: 1 });
});

test('the count runs in the worker: the main thread keeps turning while a 200 kB one-word prompt is counted', async () => {
  await countTokens('load the tokenizer first');
  let turned = false;
  setImmediate(() => (turned = true));
  const n = await countTokens('word'.repeat(50_000));
  assert.ok(turned, 'the event loop turned before the count came back');
  assert.ok(n >= 20_000 && n <= 60_000, `${n} tokens`);
});

test('a 60 MB prompt is estimated from samples, close to its real count', async () => {
  const text = PROSE.repeat(Math.ceil(60_000_000 / PROSE.length));
  const exact = countWhole(PROSE) * (text.length / PROSE.length);
  const n = await countTokens(text);
  assert.ok(Math.abs(n - exact) < exact * 0.02, `${n} estimated, about ${exact} exact`);
});

test('an aborted count rejects with the reason, and the worker goes on to the next', async () => {
  const gone = new AbortController();
  const big = Array.from({ length: MAX_COUNTED_CHARS }, (_, i) =>
    String.fromCharCode(0x4e00 + ((i * 7919) % 20_000)),
  ).join('');
  const counting = countTokens(big, gone.signal);
  setImmediate(() => gone.abort(new Error('client gone')));
  await assert.rejects(counting, /client gone/);
  assert.equal(await countTokens('hello world'), 2);
  await assert.rejects(countTokens('never counted', AbortSignal.abort(new Error('already gone'))), /already gone/);
});

test('text that spells a special token is counted as text, as upstreams read a prompt, and the thread goes on', async () => {
  const text = 'The model stops at <|endoftext|>; a FIM prompt has <|fim_prefix|> and <|fim_suffix|>.';
  assert.equal(await countTokens(text), countWhole(text, { disallowedSpecial: new Set() }));
  assert.ok(tokenizerLoaded(), 'the thread is still up after the count');
});

test('o200k_base, as before the worker', async () => {
  assert.equal(await countTokens(''), 0);
  assert.equal(await countTokens('héllo 你好 🙂'), 5);
});

test("billing's counts and the clients' are counted in one thread, which holds one copy of the tables", async () => {
  assert.equal(await countTokens('hello world'), 2);
  const billing = tokenizerThreadId();
  assert.equal(await countClientTokens('hello world'), 2);
  assert.ok(billing !== undefined);
  assert.equal(tokenizerThreadId(), billing, "the clients' count ran in billing's thread");
});

test('the thread takes turns between the two queues: a short count is answered before a long one queued earlier in the other', async () => {
  await countTokens('load the tables first');
  // About 960 chunks each: far longer to count than one chunk of the other queue.
  const long = PROSE.repeat(Math.floor(MAX_COUNTED_CHARS / PROSE.length));
  for (const [first, second] of [
    [countClientTokens, countTokens],
    [countTokens, countClientTokens],
  ] as const) {
    let longDone = false;
    const counting = first(long).then((n) => ((longDone = true), n));
    assert.equal(await second('hello world'), 2);
    assert.equal(longDone, false, 'the short count waited for the long one in the other queue');
    assert.ok((await counting) > 100_000);
  }
});

test('a thread with nothing to count is stopped after its idle time, and the next count starts a new one', async () => {
  setTokenizerIdleMs(100);
  try {
    assert.equal(await countTokens('hello world'), 2);
    const first = tokenizerThreadId();
    assert.ok(first !== undefined);
    for (const end = Date.now() + 10_000; tokenizerLoaded(); await new Promise((r) => setTimeout(r, 20)))
      assert.ok(Date.now() < end, 'the idle thread was not stopped within 10 s');
    assert.equal(await countTokens('hello world'), 2);
    assert.notEqual(tokenizerThreadId(), first, 'a new thread counted');
  } finally {
    setTokenizerIdleMs(TOKENIZER_IDLE_MS);
  }
});
