/** Tollgate's marked reasoning values (gateway/core/reasoning.ts; docs/protocols.md §6.6). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isMarked,
  mark,
  markThinking,
  restore,
  thinkingFrom,
  unmark,
  type Carried,
} from '../../gateway/core/reasoning.js';

test('every kind of mark reads back as it was written', () => {
  const all: Carried[] = [
    { kind: 'thinking', family: 'openai', signature: 'gAAAA+/enc==' },
    { kind: 'thinking', family: 'openai-chat' },
    { kind: 'thinking' },
    { kind: 'redacted', family: 'anthropic', data: 'EmwK' },
    { kind: 'call', family: 'gemini', callId: 'call_1', signature: 'Ci+sig=' },
    {
      kind: 'bundle',
      blocks: [
        { type: 'thinking', text: 'é 🙂', signature: 'EqSig', family: 'anthropic' },
        { type: 'redacted_thinking', data: 'Em', family: 'anthropic' },
      ],
    },
  ];
  for (const c of all) {
    const m = mark(c);
    assert.ok(isMarked(m));
    assert.match(
      m,
      /^tollgate\.r1\.[A-Za-z0-9_-]+$/,
      'one token of URL-safe characters, valid wherever an opaque string is',
    );
    assert.deepEqual(unmark(m), c);
  }
});

test('no vendor value reads as a mark, and a damaged mark reads as nothing', () => {
  for (const v of ['EqQBCkgIARAB', 'gAAAAABo', 'CiQBjz1rX', 'skip_thought_signature_validator', '', undefined, 42]) {
    assert.equal(isMarked(v), false);
    assert.equal(unmark(v), undefined);
  }
  assert.equal(unmark('tollgate.r1.not-base64-json'), undefined);
  assert.equal(
    unmark(`tollgate.r1.${Buffer.from('{"kind":"call","family":"gemini"}').toString('base64url')}`),
    undefined,
    'a call mark needs its id and signature',
  );
  assert.equal(
    unmark(`tollgate.r1.${Buffer.from('{"kind":"thinking","family":"martian"}').toString('base64url')}`)?.kind,
    'thinking',
    'an unknown family is left out',
  );
});

test('a thinking block goes out as its text beside a mark, and comes back whole', () => {
  const block = { type: 'thinking' as const, text: 'summary', signature: 'gAAAAenc', family: 'openai' as const };
  const carried = unmark(markThinking(block));
  assert.ok(carried?.kind === 'thinking');
  assert.deepEqual(thinkingFrom(carried, block.text), block);
  const unsigned = unmark(markThinking({ type: 'thinking', text: 'deepseek', family: 'openai-chat' }));
  assert.ok(unsigned?.kind === 'thinking');
  assert.deepEqual(thinkingFrom(unsigned, 'deepseek'), { type: 'thinking', text: 'deepseek', family: 'openai-chat' });
  assert.deepEqual(restore({ type: 'redacted_thinking', data: 'x', family: 'anthropic' }), {
    type: 'redacted_thinking',
    data: 'x',
    family: 'anthropic',
  });
});
