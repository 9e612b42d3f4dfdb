import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ECHO_CHARS, echo, invalidUtf8Offset } from '../../gateway/core/input.js';

describe('echo', () => {
  test('a short value comes back whole, a long one as a prefix and its length', () => {
    assert.equal(echo('gpt-4o'), 'gpt-4o');
    const long = echo('x'.repeat(2_000_000));
    assert.ok(long.length < ECHO_CHARS + 40, long);
    assert.match(long, /^x{80}… \(2000000 characters\)$/);
  });
});

describe('invalidUtf8Offset', () => {
  const at = (...parts: (string | number[])[]): number =>
    invalidUtf8Offset(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))));

  test('well-formed text of every length class is accepted', () => {
    assert.equal(at('plain ascii, é, €, 𝄞, 中文'), -1);
    assert.equal(at(''), -1);
  });

  test('the offset of the first bad byte', () => {
    assert.equal(at('ab', [0xff], 'c'), 2);
    assert.equal(at('é', [0x80]), 2, 'a lone continuation byte');
    assert.equal(at('abc', [0xe2, 0x82]), 3, 'a sequence cut short at the end');
    assert.equal(at('a', [0xe2, 0x41, 0x41]), 1, 'a sequence broken by an ASCII byte');
    assert.equal(at([0xc0, 0xaf]), 0, 'an overlong form');
    assert.equal(at('xy', [0xed, 0xa0, 0x80]), 2, 'a UTF-16 surrogate');
    assert.equal(at([0xf4, 0x90, 0x80, 0x80]), 0, 'above U+10FFFF');
  });
});

describe('estimateTextTokensFromBody', () => {
  test('long base64 runs count as one image each; text counts by bytes', async () => {
    const { estimateTextTokensFromBody } = await import('../../gateway/core/estimate.js');
    assert.equal(estimateTextTokensFromBody('word '.repeat(600)), 1000);
    assert.equal(estimateTextTokensFromBody(`{"data":"${'A'.repeat(5000)}"}`), Math.ceil(11 / 3) + 1600);
    assert.equal(estimateTextTokensFromBody('A'.repeat(999)), 333, 'a run under the threshold is text');
  });

  test('a body made of runs just under the threshold is read in one pass (no rescanning)', async () => {
    const { estimateTextTokensFromBody } = await import('../../gateway/core/estimate.js');
    // 8 MB of 999-character runs: a backtracking scan would take minutes; a linear one, milliseconds.
    const body = `${'A'.repeat(999)} `.repeat(8_000);
    assert.equal(estimateTextTokensFromBody(body), Math.ceil(body.length / 3));
  });
});
