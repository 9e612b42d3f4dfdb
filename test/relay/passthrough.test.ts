/** The pass-through path (relay/passthrough.ts) with a scripted upstream and a fake client: no sockets. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../gateway/core/errors.js';
import { bind } from '../../gateway/core/signatures.js';
import { emptyUsage, type Usage } from '../../gateway/core/usage.js';
import { passthrough, type PassthroughSpec } from '../../gateway/relay/passthrough.js';
import { Lines } from '../../gateway/routing/lines.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import type { LineRecord } from '../../gateway/store/types.js';
import { WIRE } from '../../gateway/wire/index.js';
import { encodeStreamError } from '../../gateway/wire/openai-chat/errors.js';
import { chatPassthrough, type ChatBody } from '../../gateway/wire/openai-chat/passthrough.js';
import { geminiPassthrough } from '../../gateway/wire/gemini/passthrough.js';
import { admitted, fakeAnswer, FakeResponse, FakeUpstream, line } from '../helpers/relay-fakes.js';

const COUNTED: Usage = { ...emptyUsage(), inputTokens: 11, outputTokens: 22 };
const sse = (data: unknown): string => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const USAGE = {
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: 9, completion_tokens: 2 },
};

function deps(upstream: FakeUpstream, lines: LineRecord[] = []) {
  return {
    upstream,
    lines: new Lines({ data: { version: 1, keys: [], lines, groups: [], aliases: [] } }, new MemorySecretStore()),
  };
}

interface Run {
  line?: LineRecord;
  stream?: boolean;
  answer: ReturnType<typeof fakeAnswer>;
  passthrough?: PassthroughSpec['passthrough'];
  side?: PassthroughSpec['side'];
  res?: FakeResponse;
  /** Tollgate's count of prompt and output ('' counts the prompt alone). */
  count?: (produced: string) => Promise<Usage>;
  /** Hand the relay the client's body as bytes too, as the HTTP layer does. */
  raw?: boolean;
}

function counterOf(count: (produced: string) => Promise<Usage>): PassthroughSpec['counter'] {
  return { prompt: () => count(''), output: async (text) => (await count(text)).outputTokens };
}

/** One request through the pass-through path (a chat request unless told otherwise): what the client saw, what was settled, and the body as it was when settled. */
async function run(opts: Run) {
  const l = opts.line ?? line('a');
  const stream = opts.stream ?? true;
  const { exchange, settled } = admitted([l], opts.side === WIRE.gemini.upstream ? 'gemini' : 'openai-chat');
  const res = opts.res ?? new FakeResponse();
  const bodyAtSettle: string[] = [];
  const hook = exchange.settleHook!;
  exchange.settleHook = async (o) => {
    bodyAtSettle.push(res.body);
    return hook(o);
  };
  const body: ChatBody = { model: 'gpt-4o', messages: [{ content: 'hi' }], ...(stream ? { stream: true } : {}) };
  const upstream = new FakeUpstream([() => opts.answer]);
  const text = JSON.stringify(body);
  const spec: PassthroughSpec = {
    exchange,
    res: res.client,
    signal: new AbortController().signal,
    stream,
    passthrough: opts.passthrough ?? chatPassthrough(body, text),
    side: opts.side ?? WIRE['openai-chat'].upstream,
    counter: counterOf(opts.count ?? (async () => COUNTED)),
    encodeStreamError,
    ...(opts.raw ? { raw: { text, bytes: Buffer.from(text) } } : {}),
  };
  const result = await passthrough(deps(upstream, [l]), spec).then(
    (outcome) => ({ outcome, error: undefined }),
    (error: GatewayError) => ({ outcome: undefined, error }),
  );
  return { ...result, res, settled, bodyAtSettle, upstream, exchange };
}

const streamed = (chunks: string[], error?: Error) => run({ answer: fakeAnswer(200, chunks, error ? { error } : {}) });

describe('streams', () => {
  test('go to the client event by event; the ledger row is written before the terminator', async () => {
    const r = await streamed([sse(chunk({ content: 'Hi' })), sse(chunk({}, 'stop')), sse(USAGE), sse('[DONE]')]);
    assert.equal(r.res.statusCode, 200);
    assert.equal(
      r.res.body,
      sse(chunk({ content: 'Hi' })) + sse(chunk({}, 'stop')) + sse('[DONE]'),
      'the usage chunk only Tollgate asked for is left out',
    );
    assert.deepEqual(r.settled, [
      { status: 200, usage: { ...emptyUsage(), inputTokens: 9, outputTokens: 2 }, usageEstimated: false, error: null },
    ]);
    assert.ok(!r.bodyAtSettle[0]!.includes('[DONE]'), 'the row was written before [DONE] went out');
    assert.equal(r.res.writableFinished, true);
    assert.deepEqual((r.upstream.bodies()[0] as { stream_options?: unknown }).stream_options, { include_usage: true });
  });

  test('one that finished and reported usage but lost its [DONE] gets it back, billed from its own usage, settled first', async () => {
    const r = await streamed([sse(chunk({ content: 'Hi' })), sse(chunk({}, 'stop')), sse(USAGE)]);
    assert.ok(r.res.body.endsWith(sse(chunk({}, 'stop')) + 'data: [DONE]\n\n'), r.res.body);
    assert.equal(r.outcome?.status, 200);
    assert.deepEqual(
      r.settled.map((o) => [o.status, o.usageEstimated, o.usage?.outputTokens]),
      [[200, false, 2]],
    );
    assert.ok(!r.bodyAtSettle[0]!.includes('[DONE]'), 'the row was written before [DONE] went out');
  });

  test('one that ends early without usage is incomplete: the client gets an error event, what was produced is billed', async () => {
    const r = await streamed([sse(chunk({ content: 'Hi' }))]);
    const incomplete = new GatewayError(
      'upstream_error',
      'Upstream error: the upstream closed the stream before it was complete.',
      { code: 'upstream_stream_incomplete' },
    );
    assert.ok(r.res.body.endsWith(encodeStreamError(incomplete)), r.res.body);
    assert.deepEqual(
      r.settled.map((o) => [o.status, o.error?.code, o.usageEstimated, o.usage]),
      [[502, 'upstream_stream_incomplete', true, COUNTED]],
    );
  });

  test('one cut by the network after it started ends with an in-band error, billed as counted', async () => {
    const r = await streamed(
      [sse(chunk({ content: 'Hi' }))],
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    );
    assert.match(r.res.body, /"code":"upstream_connection_error"/);
    assert.equal(r.outcome?.error?.code, 'upstream_connection_error');
    assert.equal(r.settled[0]?.usageEstimated, true);
  });

  test('a malformed event ends the stream with upstream_malformed', async () => {
    const r = await streamed([sse(chunk({ content: 'Hi' })), 'data: {"id":"c","choices":[\n\n']);
    assert.match(r.res.body, /not valid JSON/);
    assert.equal(r.outcome?.error?.code, 'upstream_malformed');
  });

  test('a failure before the first event reaches the client throws, so the next line can be tried', async () => {
    const r = await streamed([], Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    assert.equal(r.error?.code, 'upstream_connection_error');
    assert.equal(r.res.headersSent, false);
    assert.deepEqual(r.settled, []);
  });

  test('the client leaving mid-stream is a 499, billed as counted', async () => {
    const res = new FakeResponse();
    res.write = (c) => {
      res.chunks.push(String(c));
      res.headersSent = true;
      res.hangUp();
      return true;
    };
    const r = await run({
      res,
      answer: fakeAnswer(200, [sse(chunk({ content: 'Hi' })), sse(chunk({ content: ' there' }))]),
    });
    assert.deepEqual([r.outcome?.status, r.outcome?.error?.code, r.outcome?.usage], [499, 'client_closed', COUNTED]);
    assert.deepEqual(r.settled, [r.outcome]);
    assert.equal(res.writableFinished, false, 'nothing more is written to a client that left');
  });
});

describe('whole answers', () => {
  const whole = async (answer: string) => {
    const r = await run({
      stream: false,
      answer: fakeAnswer(200, answer),
      count: async (produced: string) => ({ ...COUNTED, outputTokens: produced.length }),
    });
    if (r.error) throw r.error;
    return { ...r, outcome: r.outcome! };
  };

  test('go back byte for byte, billed from their usage', async () => {
    const answer = JSON.stringify({
      id: 'x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    });
    const r = await whole(answer);
    assert.equal(r.res.body, answer);
    assert.equal(r.res.headers['x-request-id'], r.exchange.requestId);
    assert.deepEqual(r.settled, [r.outcome]);
    assert.deepEqual(r.outcome, {
      status: 200,
      usage: { ...emptyUsage(), inputTokens: 3, outputTokens: 1 },
      usageEstimated: false,
      error: null,
    });
  });

  test('without usage are billed as counted from what they produced', async () => {
    const r = await whole(JSON.stringify({ choices: [{ message: { content: 'four' } }] }));
    assert.deepEqual([r.outcome.usageEstimated, r.outcome.usage?.outputTokens], [true, 4]);
  });

  test('that are not JSON are an upstream error, before anything reaches the client', async () => {
    await assert.rejects(whole('<html>'), { code: 'upstream_malformed' });
  });
});

describe('the upstream request', () => {
  test("carries the line's key in the style its preset names, else in its format's usual style", async () => {
    process.env.TOLLGATE_TEST_PASSTHROUGH_KEY = 'secret-1';
    const env = { apiKeySource: 'env' as const, apiKeyEnv: 'TOLLGATE_TEST_PASSTHROUGH_KEY' };
    const answer = () =>
      fakeAnswer(200, JSON.stringify({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    const headersOf = async (l: LineRecord) =>
      (await run({ line: l, stream: false, answer: answer() })).upstream.calls[0]!.headers;
    const usual = await headersOf(line('a', env));
    assert.equal(usual.authorization, 'Bearer secret-1');
    const preset = await headersOf(line('b', { ...env, auth: 'x-api-key' }));
    assert.deepEqual([preset['x-api-key'], preset.authorization], ['secret-1', undefined]);
    const none = await headersOf(line('c', { ...env, auth: 'none' }));
    assert.deepEqual([none['x-api-key'], none.authorization], [undefined, undefined]);
    assert.deepEqual(
      [usual['content-type'], usual.accept, usual['user-agent']],
      ['application/json', 'application/json', 'Tollgate'],
    );
  });

  test("a line's headers follow its key when it changes, and the stream's accept is its own", async () => {
    process.env.TOLLGATE_TEST_PASSTHROUGH_KEY = 'secret-1';
    const l = line('a', { apiKeySource: 'env', apiKeyEnv: 'TOLLGATE_TEST_PASSTHROUGH_KEY' });
    const answer = () =>
      fakeAnswer(200, JSON.stringify({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    const headersOf = async (stream: boolean) =>
      (await run({ line: l, stream, answer: stream ? fakeAnswer(200, [sse(USAGE), sse('[DONE]')]) : answer() }))
        .upstream.calls[0]!.headers;
    assert.equal((await headersOf(false)).authorization, 'Bearer secret-1');
    assert.equal((await headersOf(true)).accept, 'text/event-stream');
    process.env.TOLLGATE_TEST_PASSTHROUGH_KEY = 'secret-2';
    const after = await headersOf(false);
    assert.deepEqual([after.authorization, after.accept], ['Bearer secret-2', 'application/json']);
  });

  test("an error answer is read by the line's format where it knows better (Gemini's invalid key is the line's fault)", async () => {
    const invalidKey = {
      error: {
        code: 400,
        message: 'API key not valid.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
      },
    };
    const r = await run({
      line: line('g', { protocol: 'gemini', baseUrl: 'https://g.example' }),
      stream: false,
      answer: fakeAnswer(400, JSON.stringify(invalidKey)),
      passthrough: geminiPassthrough({}, '{}', false),
      side: WIRE.gemini.upstream,
    });
    assert.equal(r.error?.code, 'upstream_auth_failed');
    assert.equal(r.upstream.calls[0]!.url.href, 'https://g.example/v1beta/models/gpt-4o:generateContent');
  });
});

describe('signatures on the pass-through (docs/protocols.md §6.6)', () => {
  const gLine = line('line_g', { protocol: 'gemini', baseUrl: 'https://g.example', models: ['gpt-4o'] });
  const signed = {
    candidates: [
      { content: { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'CiSig' }] } },
    ],
    modelVersion: 'gpt-4o',
  };
  const done = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 },
    modelVersion: 'gpt-4o',
  };

  test('reach the client bound to the line that answered, in a stream and in a whole answer; the rest as it came', async () => {
    const history = {
      contents: [
        { role: 'user', parts: [{ text: 'q' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: bind('CiOld', 'line_g') }],
        },
      ],
    };
    const streamed = await run({
      line: gLine,
      answer: fakeAnswer(200, [sse(signed), sse(done)]),
      passthrough: geminiPassthrough(history, JSON.stringify(history), true),
      side: WIRE.gemini.upstream,
    });
    assert.ok(streamed.res.body.includes(`"thoughtSignature":"${bind('CiSig', 'line_g')}"`), streamed.res.body);
    assert.ok(streamed.res.body.includes(sse(done)), 'a chunk without a signature goes out as it came');
    const sentUp = String(streamed.upstream.calls[0]!.body);
    assert.ok(sentUp.includes('"thoughtSignature":"CiOld"'), "the line's own signature went up unbound");
    const whole = await run({
      line: gLine,
      stream: false,
      answer: fakeAnswer(200, JSON.stringify({ ...signed, ...done, candidates: signed.candidates })),
      passthrough: geminiPassthrough({ contents: [] }, '{"contents":[]}', false),
      side: WIRE.gemini.upstream,
    });
    assert.ok(whole.res.body.includes(bind('CiSig', 'line_g')), whole.res.body);
  });
});

describe('bodies passed on as the bytes that came', () => {
  const whole = (text: string | Buffer): ReturnType<typeof fakeAnswer> => {
    const bytes = Buffer.from(text);
    return {
      ...fakeAnswer(200, bytes.toString('utf8')),
      body: { ...fakeAnswer(200, '').body, bytes: async () => bytes },
    };
  };
  const answer = (content: string) => ({
    id: 'c',
    object: 'chat.completion',
    model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 9, completion_tokens: 2 },
  });

  test("a body the format leaves as it is goes upstream as its bytes; one it changes, as the new text's bytes", async () => {
    const same = await run({ stream: false, raw: true, answer: whole(JSON.stringify(answer('ok'))) });
    const sent = same.upstream.calls[0]!.body;
    assert.ok(Buffer.isBuffer(sent), 'the bytes the client sent');
    assert.deepEqual(same.upstream.bodies()[0], { model: 'gpt-4o', messages: [{ content: 'hi' }] });
    // A stream gets include_usage added: the body changed, so it is serialised again (and sent as
    // that text's bytes, relay/upstream-call.ts).
    const changed = await run({ stream: true, raw: true, answer: fakeAnswer(200, [sse(USAGE), sse('[DONE]')]) });
    const resent = changed.upstream.calls[0]!.body;
    assert.ok(typeof resent !== 'string' && Buffer.from(resent).toString('utf8').includes('"include_usage":true'));
  });

  test('an answer that changes nothing reaches the client as it came, with the length of its bytes', async () => {
    const text = JSON.stringify(answer('héllo ✓ \uFFFD'));
    const r = await run({ stream: false, answer: whole(text) });
    assert.equal(r.res.body, text);
    assert.equal(r.res.headers['content-length'], Buffer.byteLength(text));
  });

  test('an answer with bytes that are not UTF-8 goes out decoded, its length that of the text sent', async () => {
    const text = JSON.stringify(answer('bad @ here'));
    const bytes = Buffer.from(text);
    bytes[text.indexOf('@')] = 0xff;
    const r = await run({ stream: false, answer: whole(bytes) });
    assert.equal(r.res.statusCode, 200);
    assert.equal((JSON.parse(r.res.body) as ReturnType<typeof answer>).choices[0]!.message.content, 'bad \uFFFD here');
    assert.equal(r.res.headers['content-length'], Buffer.byteLength(r.res.body));
  });
});
