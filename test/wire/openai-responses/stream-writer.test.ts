import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { encodeStream, ResponsesStreamWriter } from '../../../gateway/wire/openai-responses/encode-stream.js';
import { makeCodec } from '../../../gateway/wire/openai-responses/client-codec.js';
import { from, pushed } from '../../helpers/stream-events.js';

const ctx = { requestedModel: 'my-alias', requestId: 'req_a/b c' };
/** Text that JSON has to escape: quotes, backslashes, line ends of every kind, a control character, and non-ASCII. */
const awkward = 'say "hi"\\n\r\n\u2028\u2029\u0007 – ✓ 😀';

const events: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'up', usage: { ...emptyUsage(), inputTokens: 20 } },
  { type: 'block_start', index: 0, block: { type: 'thinking', family: 'anthropic' } },
  { type: 'thinking_delta', index: 0, text: awkward },
  { type: 'signature_delta', index: 0, signature: 'sig' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: awkward },
  { type: 'text_delta', index: 1, text: '' },
  { type: 'text_delta', index: 1, text: 'plain' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_"x"', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, json: '{"city":' },
  { type: 'tool_args_delta', index: 2, json: `"${awkward.replace(/[\\"]/g, '')}"}` },
  { type: 'block_stop', index: 2 },
  { type: 'stop', stopReason: 'tool_use', usage: { ...emptyUsage(), inputTokens: 20, outputTokens: 9 } },
];

async function generated(list: StreamEvent[]): Promise<string[]> {
  const out: string[] = [];
  for await (const s of encodeStream(from(list), ctx)) out.push(s);
  return out;
}

function written(list: StreamEvent[]): string[] {
  return pushed(new ResponsesStreamWriter(ctx), list);
}

test('the stream writer gives encodeStream its chunks, one for one, and stops at the stop event', async (t) => {
  // One clock for both encodings: each stamps created_at, in seconds, from Date.now().
  t.mock.timers.enable({ apis: ['Date'], now: 1_795_000_000_000 });
  assert.deepEqual(written(events), await generated(events));
  // Events after the stop are not read.
  const extra: StreamEvent[] = [...events, { type: 'block_start', index: 3, block: { type: 'text' } }];
  assert.deepEqual(written(extra), await generated(extra));
});

test('the stream writer ends a stream cut before its stop, or failed, as encodeStream does', async (t) => {
  // One clock for both encodings: each stamps created_at, in seconds, from Date.now().
  t.mock.timers.enable({ apis: ['Date'], now: 1_795_000_000_000 });
  const cut = events.slice(0, 8);
  assert.deepEqual(written(cut), await generated(cut));
  assert.match(written(cut).at(-1)!, /upstream_stream_incomplete/);
  assert.match(written(cut)[0]!, /"created_at":1795000000,/, 'both encodings read the one mocked clock');
  const failed: StreamEvent[] = [
    ...events.slice(0, 7),
    { type: 'error', error: new GatewayError('upstream_error', 'Upstream error: boom', { code: 'upstream_error' }) },
  ];
  assert.deepEqual(written(failed), await generated(failed));
  assert.deepEqual(written([]), await generated([]));
});

test("each event is one data line holding its object's JSON, type and sequence number first", async () => {
  const text = (await generated(events)).join('');
  const frames = text.split('\n\n');
  assert.equal(frames.pop(), '');
  frames.forEach((frame, i) => {
    const lines = frame.split('\n');
    assert.equal(lines.length, 2, frame);
    const type = lines[0]!.replace(/^event: /, '');
    const data = lines[1]!.replace(/^data: /, '');
    const obj = JSON.parse(data) as Record<string, unknown>;
    // Byte for byte what JSON.stringify writes for the parsed object: the same escapes, the same key order.
    assert.equal(data, JSON.stringify(obj));
    assert.deepEqual(Object.keys(obj).slice(0, 2), ['type', 'sequence_number']);
    assert.equal(obj.type, type);
    assert.equal(obj.sequence_number, i);
  });
  const deltas = frames.map((f) => JSON.parse(f.split('\ndata: ')[1]!) as Record<string, unknown>);
  const text0 = deltas.find((d) => d.type === 'response.output_text.delta')!;
  assert.deepEqual(text0, {
    type: 'response.output_text.delta',
    sequence_number: text0.sequence_number,
    item_id: 'msg_abc_1',
    output_index: 1,
    content_index: 0,
    delta: awkward,
    logprobs: [],
  });
  const summary = deltas.find((d) => d.type === 'response.reasoning_summary_text.delta')!;
  assert.deepEqual(
    [summary.item_id, summary.output_index, summary.summary_index, summary.delta],
    ['rs_abc_0', 0, 0, awkward],
  );
  const args = deltas.filter((d) => d.type === 'response.function_call_arguments.delta').map((d) => d.delta);
  assert.equal(args.join(''), `{"city":"${awkward.replace(/[\\"]/g, '')}"}`);
  // response.created and response.in_progress carry the same response.
  const [created, inProgress] = deltas;
  assert.deepEqual(created!.response, inProgress!.response);
});

test("the Responses codec offers the stream writer, with the route's options", async () => {
  const kept: unknown[] = [];
  const codec = makeCodec({ store: true, onResponse: (r) => kept.push(r) });
  const w = codec.streamWriter!(ctx);
  for (const ev of events) w.push(ev);
  assert.equal(w.done, true);
  assert.equal(kept.length, 1);
  assert.equal((kept[0] as { store: boolean }).store, true);
});
