/** Signatures bound to the line that made them (gateway/core/signatures.ts; docs/protocols.md §6.6). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanonicalMessage, StreamEvent } from '../../gateway/core/canonical.js';
import { mark } from '../../gateway/core/reasoning.js';
import {
  bind,
  bindResponse,
  bindStream,
  forLine,
  isBound,
  lineTag,
  messagesForLine,
  readBound,
  unbindRaw,
} from '../../gateway/core/signatures.js';
import { emptyUsage } from '../../gateway/core/usage.js';

test('a bound value names its line and keeps the vendor value as it was', () => {
  const v = bind('EqSig+/==', 'line_0123abcd');
  assert.equal(v, 'tollgate.l1.line_0123abcd.EqSig+/==');
  assert.ok(isBound(v));
  assert.deepEqual(readBound(v), { tag: 'line_0123abcd', value: 'EqSig+/==' });
  assert.equal(forLine(v, 'line_0123abcd'), 'EqSig+/==');
  assert.equal(forLine(v, 'line_other'), undefined, "another line's value is not sent");
  assert.equal(forLine('EqNative', 'line_other'), 'EqNative', 'a value that is not bound passes as it is');
  assert.equal(forLine('tollgate.l1.nodot', 'line_a'), undefined, 'a damaged binding is not sent');
});

test('a line id that is not a plain token is bound in base64url, and never confused with another', () => {
  const tag = lineTag('my line.1');
  assert.match(tag, /^b64-[A-Za-z0-9_-]+$/);
  const v = bind('sig', 'my line.1');
  assert.equal(forLine(v, 'my line.1'), 'sig');
  assert.equal(forLine(v, 'my line'), undefined);
});

test('bound twice (a line that is another Tollgate), each gateway unbinds its own layer', () => {
  const theirs = bind('sig', 'line_far');
  const ours = bind(theirs, 'line_near');
  assert.equal(forLine(ours, 'line_near'), theirs);
});

test("an upstream's answer and stream get every signature bound to the line that answered", async () => {
  const res = bindResponse(
    {
      id: 'x',
      model: 'm',
      content: [
        { type: 'thinking', text: 't', signature: 'S1', family: 'anthropic' },
        { type: 'thinking', text: 'unsigned', family: 'openai' },
        { type: 'redacted_thinking', data: 'R1', family: 'anthropic' },
        { type: 'tool_call', id: 'c', name: 'f', input: {}, signature: 'G1', signatureFamily: 'gemini' },
        { type: 'text', text: 'hi' },
      ],
      stopReason: 'end_turn',
      usage: emptyUsage(),
    },
    'line_a',
  );
  assert.deepEqual(
    res.content.map((b) => ('signature' in b ? b.signature : 'data' in b ? b.data : undefined)),
    ['tollgate.l1.line_a.S1', undefined, 'tollgate.l1.line_a.R1', 'tollgate.l1.line_a.G1', undefined],
  );
  async function* events(): AsyncGenerator<StreamEvent> {
    yield { type: 'block_start', index: 0, block: { type: 'thinking', family: 'anthropic' } };
    yield { type: 'signature_delta', index: 0, signature: 'S2' };
    yield { type: 'block_start', index: 1, block: { type: 'redacted_thinking', data: 'R2' } };
    yield { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'c', name: 'f', signature: 'G2' } };
    yield { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'd', name: 'f' } };
  }
  const out: StreamEvent[] = [];
  for await (const ev of bindStream(events(), 'line_a')) out.push(ev);
  assert.deepEqual(out[1], { type: 'signature_delta', index: 0, signature: 'tollgate.l1.line_a.S2' });
  assert.deepEqual(out[2], {
    type: 'block_start',
    index: 1,
    block: { type: 'redacted_thinking', data: 'tollgate.l1.line_a.R2' },
  });
  assert.equal((out[3] as { block: { signature?: string } }).block.signature, 'tollgate.l1.line_a.G2');
  assert.deepEqual(out[4], { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'd', name: 'f' } });
});

test("messagesForLine: this line's signatures unbound, another line's removed with a note, others untouched", () => {
  const messages: CanonicalMessage[] = [
    { role: 'user', content: [{ type: 'text', text: 'q' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'mine', signature: bind('S1', 'line_a'), family: 'gemini' },
        { type: 'thinking', text: 'theirs', signature: bind('S2', 'line_b'), family: 'gemini' },
        { type: 'tool_call', id: 'c', name: 'f', input: {}, signature: bind('G', 'line_b'), signatureFamily: 'gemini' },
        { type: 'thinking', text: 'other family', signature: bind('A', 'line_b'), family: 'anthropic' },
        { type: 'thinking', text: 'native', signature: 'N', family: 'gemini' },
      ],
    },
  ];
  const notes: string[] = [];
  const out = messagesForLine(messages, 'line_a', 'gemini', 'gemini', notes);
  assert.deepEqual(out[1]!.content, [
    { type: 'thinking', text: 'mine', signature: 'S1', family: 'gemini' },
    { type: 'thinking', text: 'theirs', family: 'gemini' },
    { type: 'tool_call', id: 'c', name: 'f', input: {} },
    { type: 'thinking', text: 'other family', signature: bind('A', 'line_b'), family: 'anthropic' },
    { type: 'thinking', text: 'native', signature: 'N', family: 'gemini' },
  ]);
  assert.equal(out[0], messages[0], 'untouched messages are the same objects');
  assert.deepEqual(notes, [
    "gemini: left out 2 signature(s) made by another line (another account's signatures do not verify)",
  ]);
  const plain = [messages[0]!];
  assert.equal(messagesForLine(plain, 'line_a', 'gemini', 'gemini', []), plain, 'nothing bound: the same array');
});

test('redacted thinking bound to another line is removed whole; to this line, unbound', () => {
  const notes: string[] = [];
  const out = messagesForLine(
    [
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: bind('R1', 'line_a'), family: 'anthropic' },
          { type: 'redacted_thinking', data: bind('R2', 'line_b'), family: 'anthropic' },
        ],
      },
    ],
    'line_a',
    'anthropic',
    'anthropic',
    notes,
  );
  assert.deepEqual(out[0]!.content, [{ type: 'redacted_thinking', data: 'R1', family: 'anthropic' }]);
  assert.equal(notes.length, 1);
});

test('unbindRaw: the bound strings of one line, found by their opening quote, and nothing else', () => {
  const body = {
    messages: [
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: bind('EqA==', 'line_a') }] },
      // Text that quotes a bound value is text inside a string: its quote is escaped, so it stays.
      { role: 'user', content: `the log said "${bind('x', 'line_a')}" and \\"${bind('y', 'line_a')}` },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: bind('R', 'line_a') }] },
    ],
    other: bind('z', 'line_b'),
  };
  const raw = JSON.stringify(body);
  const out = JSON.parse(unbindRaw(raw, 'line_a')) as typeof body;
  assert.equal((out.messages[0]!.content as { signature: string }[])[0]!.signature, 'EqA==');
  assert.equal(out.messages[1]!.content, body.messages[1]!.content, 'quoted text is left as it was');
  assert.equal((out.messages[2]!.content as { data: string }[])[0]!.data, 'R');
  assert.equal(out.other, bind('z', 'line_b'), "another line's value is not this function's business");
  assert.equal(unbindRaw('{"a":"b"}', 'line_a'), '{"a":"b"}');
});

test('a family mark carrying a bound signature reads back with the binding inside', () => {
  const m = mark({ kind: 'thinking', family: 'anthropic', signature: bind('EqA', 'line_a') });
  assert.ok(!isBound(m), 'a mark is not a bound value');
});
