/** The translation path (relay/translate.ts) and its canonical tap, with a scripted upstream and a fake client. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalRequest, StreamEvent } from '../../gateway/core/canonical.js';
import { GatewayError } from '../../gateway/core/errors.js';
import { countTokens } from '../../gateway/core/tokenizer.js';
import { emptyUsage } from '../../gateway/core/usage.js';
import { CanonicalTap } from '../../gateway/relay/canonical-tap.js';
import { translate } from '../../gateway/relay/translate.js';
import { Lines } from '../../gateway/routing/lines.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import type { LineRecord } from '../../gateway/store/types.js';
import { WIRE } from '../../gateway/wire/index.js';
import { makeCodec } from '../../gateway/wire/openai-chat/client-codec.js';
import type { UpstreamCall, UpstreamResponse } from '../../gateway/upstream/client.js';
import { collect } from '../helpers/collect.js';
import { admitted, fakeAnswer, FakeResponse, FakeUpstream, line } from '../helpers/relay-fakes.js';

const PROMPT = { ...emptyUsage(), inputTokens: 50 };
const request = (over: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'gpt-4o',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  stream: false,
  notes: [],
  ...over,
});
const ev = (event: string, data: Record<string, unknown>): string =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const MESSAGE_STREAM = [
  ev('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  }),
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
  ev('content_block_stop', { index: 0 }),
  ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }),
  ev('message_stop', {}),
];

const anthropicLine = (over: Partial<LineRecord> = {}): LineRecord =>
  line('anthropic', {
    protocol: 'anthropic',
    baseUrl: 'https://api.anthropic.example',
    modelMap: { 'gpt-4o': 'claude-x' },
    ...over,
  });

/** A chat client's request translated for an anthropic line. */
async function chatToAnthropic(
  answer: ReturnType<typeof fakeAnswer>,
  req: CanonicalRequest,
  l: LineRecord = anthropicLine(),
) {
  const { exchange, settled } = admitted([l]);
  exchange.admission!.upstreamModel = 'claude-x';
  const res = new FakeResponse();
  const bodyAtSettle: string[] = [];
  const hook = exchange.settleHook!;
  exchange.settleHook = async (o) => {
    bodyAtSettle.push(res.body);
    return hook(o);
  };
  const upstream = new FakeUpstream([() => answer]);
  const deps = {
    upstream,
    lines: new Lines({ data: { version: 1, keys: [], lines: [l], groups: [], aliases: [] } }, new MemorySecretStore()),
  };
  const result = await translate(deps, {
    exchange,
    res: res.client,
    signal: new AbortController().signal,
    request: req,
    encoder: makeCodec(true),
    side: WIRE.anthropic.upstream,
    promptUsage: PROMPT,
    counter: { prompt: async () => PROMPT, output: countTokens },
  }).then(
    (outcome) => ({ outcome, error: undefined }),
    (error: GatewayError) => ({ outcome: undefined, error }),
  );
  return { ...result, exchange, settled, res, upstream, bodyAtSettle };
}

/** The JSON of each `data:` line the client got. */
const dataOf = (body: string): unknown[] =>
  body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => (l === 'data: [DONE]' ? '[DONE]' : JSON.parse(l.slice(6))));

describe('translate', () => {
  test("a whole answer: the line's format up, the client's format back, billed from the upstream's usage", async () => {
    process.env.TOLLGATE_TEST_TRANSLATE_KEY = 'k-1';
    const answer = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 3 },
    };
    const r = await chatToAnthropic(
      fakeAnswer(200, JSON.stringify(answer)),
      request(),
      anthropicLine({ apiKeySource: 'env', apiKeyEnv: 'TOLLGATE_TEST_TRANSLATE_KEY' }),
    );
    const call = r.upstream.calls[0]!;
    assert.equal(call.url.href, 'https://api.anthropic.example/v1/messages');
    assert.deepEqual(
      [call.headers['x-api-key'], call.headers['anthropic-version'], call.headers.authorization],
      ['k-1', '2023-06-01', undefined],
    );
    assert.equal((r.upstream.bodies()[0] as { model: string }).model, 'claude-x');
    const body = JSON.parse(r.res.body) as {
      object: string;
      model: string;
      choices: { message: { content: string } }[];
    };
    assert.deepEqual(
      [body.object, body.model, body.choices[0]!.message.content],
      ['chat.completion', 'gpt-4o', 'Hello'],
    );
    assert.deepEqual(r.outcome, {
      status: 200,
      usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 3 },
      usageEstimated: false,
      error: null,
    });
    assert.deepEqual(r.settled, [r.outcome]);
  });

  test('a stream, event by event; the ledger row is written before the terminator', async () => {
    const r = await chatToAnthropic(fakeAnswer(200, MESSAGE_STREAM), request({ stream: true }));
    const data = dataOf(r.res.body);
    assert.equal(data.at(-1), '[DONE]');
    const chunks = data.slice(0, -1) as {
      choices: { delta: { content?: string }; finish_reason: string | null }[];
      usage?: { completion_tokens: number };
    }[];
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hi');
    assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason, 'stop');
    assert.equal(chunks.at(-1)?.usage?.completion_tokens, 5);
    assert.deepEqual(
      r.settled.map((o) => [o.status, o.usage?.inputTokens, o.usage?.outputTokens, o.usageEstimated]),
      [[200, 10, 5, false]],
    );
    assert.ok(!r.bodyAtSettle[0]!.includes('[DONE]'), 'the row was written before [DONE] went out');
    assert.equal(r.res.writableFinished, true);
  });

  test("a stream cut after it started ends with the client's in-band error, billed as the prompt message_start reported plus what was produced", async () => {
    const r = await chatToAnthropic(
      fakeAnswer(200, MESSAGE_STREAM.slice(0, 3), { error: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }),
      request({ stream: true }),
    );
    const last = dataOf(r.res.body).at(-1) as { error?: { code: string } };
    assert.equal(last.error?.code, 'upstream_connection_error');
    assert.equal(r.outcome?.error?.code, 'upstream_connection_error');
    // No stop event, so no final usage: the prompt as message_start reported it (not the admission's estimate), the output as counted ("Hi").
    assert.notEqual(PROMPT.inputTokens, 10);
    assert.deepEqual(
      [r.outcome?.usage?.inputTokens, r.outcome?.usage?.outputTokens, r.outcome?.usageEstimated],
      [10, 1, true],
    );
  });

  test('a failure before the first event throws, so the next line can be tried', async () => {
    const r = await chatToAnthropic(
      fakeAnswer(200, [], { error: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }),
      request({ stream: true }),
    );
    assert.equal(r.error?.code, 'upstream_connection_error');
    assert.equal(r.res.headersSent, false);
    assert.deepEqual(r.settled, []);
  });

  test("an error status is the client's error, before anything is written", async () => {
    const r = await chatToAnthropic(
      fakeAnswer(529, JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })),
      request(),
    );
    assert.deepEqual([r.error?.status, r.error?.code], [503, 'upstream_unavailable']);
    assert.equal(r.res.headersSent, false);
  });

  test('what the line cannot carry goes to the log notes', async () => {
    const answer = {
      id: 'c',
      choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    };
    const l = line('chat');
    const { exchange } = admitted([l]);
    const upstream = new FakeUpstream([() => fakeAnswer(200, JSON.stringify(answer))]);
    const deps = {
      upstream,
      lines: new Lines(
        { data: { version: 1, keys: [], lines: [l], groups: [], aliases: [] } },
        new MemorySecretStore(),
      ),
    };
    await translate(deps, {
      exchange,
      res: new FakeResponse().client,
      signal: new AbortController().signal,
      request: request({ topK: 5, notes: ['decoded note'] }),
      encoder: makeCodec(false),
      side: WIRE['openai-chat'].upstream,
      promptUsage: PROMPT,
      counter: { prompt: async () => PROMPT, output: countTokens },
    });
    assert.deepEqual(exchange.notes, ['decoded note', 'top_k has no Chat Completions field and was dropped']);
  });
});

describe('CanonicalTap', () => {
  async function* events(list: StreamEvent[], error?: unknown): AsyncGenerator<StreamEvent> {
    for (const e of list) yield e;
    if (error) throw error;
  }
  const START: StreamEvent = { type: 'start', id: 'x', model: 'm', usage: emptyUsage() };
  const drain = async (it: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> => {
    const out: StreamEvent[] = [];
    for await (const e of it) out.push(e);
    return out;
  };

  test('keeps the final usage, what was produced, and calls beforeStop before the stop event goes on', async () => {
    const tap = new CanonicalTap();
    const order: string[] = [];
    tap.beforeStop = async () => void order.push('settled');
    const usage = { ...emptyUsage(), inputTokens: 3, outputTokens: 4 };
    const list: StreamEvent[] = [
      START,
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 't', name: 'get' } },
      { type: 'tool_args_delta', index: 0, json: '{"a":1}' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'text_delta', index: 1, text: 'ok' },
      { type: 'stop', stopReason: 'tool_use', usage },
    ];
    for await (const e of tap.watch(events(list), new AbortController().signal)) order.push(e.type);
    assert.deepEqual(order.slice(-2), ['settled', 'stop']);
    assert.deepEqual([tap.usage, tap.usageEstimated, tap.produced, tap.failure], [usage, false, 'get{"a":1}ok', null]);
  });

  test('a break after the first event becomes an error event; before it, a throw', async () => {
    const after = new CanonicalTap();
    const got = await drain(
      after.watch(
        events([START], Object.assign(new Error('reset'), { code: 'ECONNRESET' })),
        new AbortController().signal,
      ),
    );
    assert.equal(got.at(-1)?.type, 'error');
    assert.equal(after.failure?.code, 'upstream_connection_error');
    await assert.rejects(
      drain(new CanonicalTap().watch(events([], new SyntaxError('x')), new AbortController().signal)),
      { code: 'upstream_malformed' },
    );
  });

  test('an error event from the upstream is kept as the failure', async () => {
    const tap = new CanonicalTap();
    const error = new GatewayError('upstream_error', 'boom', { code: 'upstream_stream_error' });
    await drain(tap.watch(events([START, { type: 'error', error }]), new AbortController().signal));
    assert.equal(tap.failure, error);
  });
});

describe('translate, across the upstream wait', () => {
  test("while the upstream answers, the request in the line's format is not held: only its notes and the client's headers are", async () => {
    const l = anthropicLine();
    const { exchange } = admitted([l]);
    exchange.admission!.upstreamModel = 'claude-x';
    const base = WIRE.anthropic.upstream.codec;
    let wire: WeakRef<object> | undefined;
    const codec = Object.create(base, {
      toRequest: {
        value: (...args: Parameters<typeof base.toRequest>) => {
          const up = base.toRequest(...args);
          wire = new WeakRef(up.body as object);
          return up;
        },
      },
    }) as typeof base;
    let answer: (res: UpstreamResponse) => void = () => undefined;
    let sent = (): void => undefined;
    const arrived = new Promise<void>((resolve) => (sent = resolve));
    // An upstream that keeps nothing of the call while it waits (FakeUpstream keeps every call).
    const upstream = {
      send: (_call: UpstreamCall) =>
        new Promise<UpstreamResponse>((resolve) => {
          answer = resolve;
          sent();
        }),
    };
    const res = new FakeResponse();
    const done = translate(
      {
        upstream,
        lines: new Lines(
          { data: { version: 1, keys: [], lines: [l], groups: [], aliases: [] } },
          new MemorySecretStore(),
        ),
      },
      {
        exchange,
        res: res.client,
        signal: new AbortController().signal,
        request: request({ stream: true }),
        encoder: makeCodec(true),
        side: { ...WIRE.anthropic.upstream, codec },
        promptUsage: PROMPT,
        counter: { prompt: async () => PROMPT, output: countTokens },
      },
    );
    await arrived;
    await collect();
    assert.equal(wire?.deref(), undefined, "the line's request body was collected while the upstream had the request");
    answer(fakeAnswer(200, MESSAGE_STREAM));
    const outcome = await done;
    assert.equal(outcome.usage?.outputTokens, 5);
    assert.equal(dataOf(res.body).at(-1), '[DONE]');
  });
});
