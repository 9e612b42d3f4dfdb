/** core/o200k.ts: the token-counting thread's tokenizer, built from gpt-tokenizer's tiktoken file, is the library's own o200k_base. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens, encode } from 'gpt-tokenizer';
import libraryRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { o200k, o200kRanks } from '../../gateway/core/o200k.js';

test('the ranks read from the tiktoken file are the ranks of the library’s o200k_base module, one for one', () => {
  const ranks = o200kRanks();
  assert.equal(ranks.length, 199_998);
  assert.equal(ranks.length, libraryRanks.length);
  let strings = 0;
  for (let i = 0; i < ranks.length; i++) {
    assert.deepEqual(ranks[i], libraryRanks[i], `rank ${i}`);
    if (typeof ranks[i] === 'string') strings++;
  }
  // Most tokens are text; some are bytes that are not UTF-8 on their own.
  assert.ok(strings > 190_000 && strings < ranks.length, `${strings} string tokens`);
});

test('the encoding built from them counts and encodes as the library does', () => {
  const { countTokens: count, encode: enc } = o200k();
  const texts = [
    '',
    'héllo 你好 🙂',
    'The quick brown fox jumps over the lazy dog, then writes some code:\n  const x = [1, 2, 3];\n'.repeat(50),
    Array.from({ length: 5000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join(''),
    '<|endoftext|> is text here, \u0000\u00ff\ud83d\ude00 and bytes',
  ];
  const asText = { disallowedSpecial: new Set<string>() };
  for (const t of texts) {
    assert.equal(count(t, asText), countTokens(t, asText), JSON.stringify(t.slice(0, 40)));
    assert.deepEqual(enc(t, asText), encode(t, asText));
  }
  // The byte-order mark, which a UTF-8 decoder drops, is counted as the library counts it.
  assert.deepEqual(enc('\ufeffhello'), encode('\ufeffhello'));
});
