/** The gateway's token calibration: learnt from reported usage, per model, on whatever path the answer took. */
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { test } from 'node:test';
import type { CanonicalRequest } from '../../gateway/core/canonical.js';
import { Calibration, TokenCalibration } from '../../gateway/core/calibration.js';
import { countTokens, tokenizerLoaded } from '../../gateway/core/tokenizer.js';
import { countPromptTokens } from '../../gateway/core/token-count.js';
import { emptyUsage } from '../../gateway/core/usage.js';

const prompt = (text: string): CanonicalRequest => ({
  model: 'm',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [],
  stream: false,
  notes: [],
});
const usage = (prompt: number) => ({ ...emptyUsage(), inputTokens: prompt - 10, cacheReadTokens: 10, outputTokens: 5 });

test('Calibration: a running ratio per model, ignoring tiny prompts and wild mismatches, with vendor defaults', () => {
  const c = new Calibration();
  assert.equal(c.factor('claude-x'), 1.15);
  assert.equal(c.factor('gpt-x'), 1);
  c.record('gpt-x', 100, 120);
  assert.equal(c.factor('gpt-x'), 1.2);
  c.record('gpt-x', 100, 140);
  assert.ok(Math.abs(c.factor('gpt-x') - 1.3) < 1e-9, `factor ${c.factor('gpt-x')}`);
  c.record('gpt-x', 10, 1_000);
  c.record('gpt-x', 100, 1_000);
  assert.ok(Math.abs(c.factor('gpt-x') - 1.3) < 1e-9, `factor ${c.factor('gpt-x')}`);
  assert.equal(c.apply('gpt-x', 0), 1);
});

test('the byte estimate is corrected from every answer with reported usage', () => {
  const cal = new TokenCalibration();
  assert.equal(cal.promptFromEstimate('m', 1_000), 750);
  cal.learn('m', 1_000, usage(500), () => prompt('x'));
  assert.equal(cal.promptFromEstimate('m', 1_000), 500);
  assert.equal(cal.promptFromEstimate('other', 1_000), 750, 'per model');
});

test('the tokenizer correction is learnt once the tokenizer is loaded, from the prompt the answer was for', async () => {
  const cal = new TokenCalibration();
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
  const req = prompt(text);
  if (!tokenizerLoaded()) {
    cal.learn('claude-z', 100, usage(1_000), () => assert.fail('no tokenizer pass before count_tokens loads it'));
    await tick();
    await countTokens('load');
  }
  const counted = await countPromptTokens(req);
  assert.equal(await cal.countPrompt('claude-z', req), Math.round(counted * 1.15));
  const reported = Math.round(counted * 1.4);
  cal.learn('claude-z', 100, usage(reported), () => req);
  await tick();
  await tick();
  assert.equal(await cal.countPrompt('claude-z', req), reported);
});

test('after a warm-up, the tokenizer counts only one answer in a hundred', async () => {
  await countTokens('load');
  const cal = new TokenCalibration();
  let passes = 0;
  for (let i = 0; i < 205; i++) {
    cal.learn('gpt-y', 100, usage(200), () => {
      passes++;
      return prompt('hello world, '.repeat(10));
    });
    // Each sample's count ends before the next answer comes (the worker answers in order).
    await tick();
    await countTokens('wait for the count before');
    await tick();
  }
  assert.equal(passes, 5 + 2);
});

test('a sample is skipped while another is still being counted: calibration never queues in the tokenizer', async () => {
  await countTokens('load');
  const cal = new TokenCalibration();
  let passes = 0;
  for (let i = 0; i < 3; i++) {
    cal.learn('gpt-z', 100, usage(200), () => {
      passes++;
      return prompt('hello world, '.repeat(10));
    });
  }
  await tick();
  assert.equal(passes, 1, 'the two answers that came while the first was counted are not counted');
  await countTokens('wait for the count before');
  await tick();
  cal.learn('gpt-z', 100, usage(200), () => {
    passes++;
    return prompt('hello world, '.repeat(10));
  });
  await tick();
  assert.equal(passes, 2, 'the next answer after it is (still in the warm-up)');
});

test('a prompt that cannot be decoded is no sample, and the next answer is still learnt from', async () => {
  await countTokens('load');
  const cal = new TokenCalibration();
  cal.learn('gpt-w', 100, usage(200), () => {
    throw new Error('not decodable');
  });
  await tick();
  let passes = 0;
  cal.learn('gpt-w', 100, usage(200), () => {
    passes++;
    return prompt('hello world, '.repeat(10));
  });
  await tick();
  assert.equal(passes, 1);
});
