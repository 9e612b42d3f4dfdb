/**
 * The one model route (relay/model-route.ts) and the route entry (relay/route.ts) with fake
 * services: which path a request takes, what admission is told, and that calibration learns from
 * every path. The formats' own route declarations read the requests.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdmitInput, Charge } from '../../gateway/billing/billing.js';
import type { CanonicalRequest } from '../../gateway/core/canonical.js';
import type { GatewayError } from '../../gateway/core/errors.js';
import type { ClientRequest, FormatRoute, ModelRoute, WireFormat } from '../../gateway/core/format.js';
import type { Usage } from '../../gateway/core/usage.js';
import { newExchange } from '../../gateway/relay/exchange.js';
import type { RelayServices } from '../../gateway/relay/ports.js';
import { handleRoute } from '../../gateway/relay/route.js';
import { Lines } from '../../gateway/routing/lines.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import type { KeyRecord, LineRecord } from '../../gateway/store/types.js';
import { WIRE } from '../../gateway/wire/index.js';
import { admission, fakeAnswer, FakeResponse, FakeUpstream, line, MODEL } from '../helpers/relay-fakes.js';

const KEY: KeyRecord = {
  id: 'key_a',
  name: 'a',
  hash: 'h',
  last4: 'abcd',
  group: 'default',
  quotaMicro: null,
  expiresAt: null,
  state: 'enabled',
  createdAt: '2026-01-01T00:00:00Z',
};
const CHAT_ANSWER = JSON.stringify({
  id: 'c',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 30, completion_tokens: 2 },
});
const MESSAGES_ANSWER = JSON.stringify({
  id: 'm',
  type: 'message',
  role: 'assistant',
  model: 'gpt-4o',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 30, output_tokens: 2 },
});
const RESPONSES_ANSWER = JSON.stringify({
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  output: [
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    },
  ],
  usage: { input_tokens: 30, output_tokens: 2 },
});

interface Recorded {
  admits: AdmitInput[];
  charges: Charge[];
  learned: { model: string; estimated: number; usage: Usage; prompt: CanonicalRequest }[];
  stored: Map<string, unknown[]>;
}

function services(lines: LineRecord[], upstream: FakeUpstream): { services: RelayServices; seen: Recorded } {
  const seen: Recorded = { admits: [], charges: [], learned: [], stored: new Map() };
  return {
    seen,
    services: {
      billing: {
        admit: (_key, _model, input) => {
          seen.admits.push(input);
          return admission(lines);
        },
        settle: async (charge) => {
          seen.charges.push(charge);
          return null;
        },
      },
      lines: new Lines({ data: { version: 1, keys: [], lines, groups: [], aliases: [] } }, new MemorySecretStore()),
      upstream,
      models: { forKey: () => [MODEL], resolve: () => ({ model: MODEL, multiplierPpm: 1_000_000 }) },
      tokenCounts: { run: (_key, work) => work((text) => Promise.resolve(Math.ceil(text.length / 4))) },
      calibration: {
        promptFromEstimate: (_m, estimated) => estimated,
        countPrompt: async () => 7,
        learn: (model, estimated, usage, prompt) =>
          void seen.learned.push({ model, estimated, usage, prompt: prompt() }),
      },
      conversations: {
        get: (id) => seen.stored.get(id),
        put: (id, _keyId, items) => void seen.stored.set(id, items),
      },
      bodies: { record: () => undefined },
    },
  };
}

function modelRoute(format: WireFormat, url: string): FormatRoute {
  const route = format.routes.find((r) => r.url === url && 'model' in r);
  assert.ok(route, `${format.id} has no model route ${url}`);
  return route;
}

async function call(
  format: WireFormat,
  url: string,
  req: Partial<ClientRequest>,
  lines: LineRecord[],
  answers: string[],
) {
  const upstream = new FakeUpstream(answers.map((a) => () => fakeAnswer(200, a)));
  const { services: s, seen } = services(lines, upstream);
  const exchange = newExchange(format.id, true);
  exchange.key = KEY;
  const res = new FakeResponse();
  const body = req.body ?? {};
  await handleRoute(s, {
    format,
    route: modelRoute(format, url),
    exchange,
    key: KEY,
    req: { rawBody: JSON.stringify(body), params: {}, query: {}, headers: {}, ...req, body },
    res: res.client,
  });
  return { seen, upstream, exchange, res };
}

const chatBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] };

describe('the model route', () => {
  test("a line of the client's own format takes the pass-through path, and the calibration learns from it", async () => {
    const r = await call(
      WIRE['openai-chat'],
      '/v1/chat/completions',
      { body: chatBody },
      [line('chat')],
      [CHAT_ANSWER],
    );
    assert.equal(r.upstream.calls[0]!.body.toString(), JSON.stringify(chatBody), "the client's own bytes");
    assert.equal(r.res.body, CHAT_ANSWER);
    assert.deepEqual(
      r.seen.learned.map((l) => [l.model, l.usage.inputTokens]),
      [['gpt-4o', 30]],
    );
    assert.equal(r.seen.learned[0]!.prompt.messages.length, 1, 'the prompt it learns from is the decoded request');
    assert.deepEqual(
      r.seen.charges.map((c) => [c.status, c.inboundProtocol, c.usage?.outputTokens]),
      [[200, 'openai-chat', 2]],
    );
  });

  test('a line of another format is translated, and the calibration learns from that too', async () => {
    const r = await call(
      WIRE['openai-chat'],
      '/v1/chat/completions',
      { body: chatBody },
      [line('claude', { protocol: 'anthropic', baseUrl: 'https://a.example' })],
      [MESSAGES_ANSWER],
    );
    assert.equal(r.upstream.calls[0]!.url.pathname, '/v1/messages');
    assert.equal((JSON.parse(r.res.body) as { object: string }).object, 'chat.completion');
    assert.deepEqual(
      r.seen.learned.map((l) => l.usage.inputTokens),
      [30],
    );
  });

  test('admission is told the output limit and the byte estimate of the body', async () => {
    const r = await call(
      WIRE['openai-chat'],
      '/v1/chat/completions',
      { body: { ...chatBody, max_completion_tokens: 99 } },
      [line('chat')],
      [CHAT_ANSWER],
    );
    assert.equal(r.seen.admits[0]!.maxOutputTokens, 99);
    assert.ok(r.seen.admits[0]!.estimatedInputTokens > 0, 'a prompt estimate was made');
  });

  test('a Responses request that asks to be stored is translated even for a Responses line, and its answer is stored', async () => {
    const body = { model: 'gpt-4o', input: 'hi' };
    const r = await call(
      WIRE['openai-responses'],
      '/v1/responses',
      { body },
      [line('resp', { protocol: 'openai-responses' })],
      [RESPONSES_ANSWER],
    );
    const sent = r.upstream.bodies()[0] as { store: boolean; input: unknown[] };
    assert.equal(sent.store, false, 'Tollgate keeps the chain; the upstream never stores');
    assert.notEqual(r.upstream.calls[0]!.body, JSON.stringify(body));
    const id = (JSON.parse(r.res.body) as { id: string }).id;
    assert.equal(r.seen.stored.get(id)?.length, 2, 'the input and the output');
  });

  test('a Responses chain puts the stored conversation first and estimates the prompt from all of it', async () => {
    const history = Array.from({ length: 20 }, (_, i) => ({ role: 'user', content: `turn ${i} `.repeat(20) }));
    const upstream = new FakeUpstream([() => fakeAnswer(200, RESPONSES_ANSWER)]);
    const { services: s, seen } = services([line('resp', { protocol: 'openai-responses' })], upstream);
    seen.stored.set('resp_prev', history);
    const exchange = newExchange('openai-responses', true);
    const body = { model: 'gpt-4o', input: 'next', previous_response_id: 'resp_prev', store: false };
    await handleRoute(s, {
      format: WIRE['openai-responses'],
      route: modelRoute(WIRE['openai-responses'], '/v1/responses'),
      exchange,
      key: KEY,
      req: { body, rawBody: JSON.stringify(body), params: {}, query: {}, headers: {} },
      res: new FakeResponse().client,
    });
    assert.equal((upstream.bodies()[0] as { input: unknown[] }).input.length, 21);
    assert.ok(
      seen.admits[0]!.estimatedInputTokens > JSON.stringify(body).length / 3,
      'the estimate covers the stored history',
    );
  });

  test('a Gemini body no format can carry is refused before admission holds any money', async () => {
    const route = modelRoute(WIRE.gemini, '/v1beta/models/*');
    const { services: s, seen } = services([line('g', { protocol: 'gemini' })], new FakeUpstream([]));
    const body = { contents: [{ role: 'narrator', parts: [{ text: 'hi' }] }] };
    const req = {
      body,
      rawBody: JSON.stringify(body),
      params: { '*': 'models/gpt-4o:generateContent' },
      query: {},
      headers: {},
    };
    await assert.rejects(
      handleRoute(s, {
        format: WIRE.gemini,
        route,
        exchange: newExchange('gemini', true),
        key: KEY,
        req,
        res: new FakeResponse().client,
      }),
      { status: 400 },
    );
    assert.deepEqual(seen.admits, []);
  });

  test('no learning from an answer whose usage had to be counted', async () => {
    const noUsage = JSON.stringify({
      id: 'c',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    });
    const r = await call(WIRE['openai-chat'], '/v1/chat/completions', { body: chatBody }, [line('chat')], [noUsage]);
    assert.deepEqual(r.seen.learned, []);
    assert.deepEqual([r.seen.charges[0]!.usageEstimated, r.seen.charges[0]!.usage?.inputTokens], [true, 7]);
  });
});

describe('local answers', () => {
  test("a model route's request answered locally (Gemini countTokens) gets no ledger row", async () => {
    const route = modelRoute(WIRE.gemini, '/v1beta/models/*') as ModelRoute;
    const { services: s, seen } = services([], new FakeUpstream([]));
    const exchange = newExchange('gemini', true);
    const res = new FakeResponse();
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    await handleRoute(s, {
      format: WIRE.gemini,
      route,
      exchange,
      key: KEY,
      req: {
        body,
        rawBody: JSON.stringify(body),
        params: { '*': 'models/gpt-4o:countTokens' },
        query: {},
        headers: {},
      },
      res: res.client,
    });
    assert.equal(exchange.billable, false);
    assert.deepEqual(JSON.parse(res.body), { totalTokens: 7 });
    assert.deepEqual([seen.admits, seen.charges], [[], []]);
  });

  test('a local route answers from the models the key may use', async () => {
    const route = WIRE['openai-chat'].routes.find((r) => r.url === '/v1/models')!;
    const { services: s } = services([], new FakeUpstream([]));
    const res = new FakeResponse();
    await handleRoute(s, {
      format: WIRE['openai-chat'],
      route,
      exchange: newExchange('openai-chat', false),
      key: KEY,
      req: { body: undefined, rawBody: '', params: {}, query: {}, headers: {} },
      res: res.client,
    });
    assert.deepEqual((JSON.parse(res.body) as { data: { id: string; owned_by: string }[] }).data, [
      { id: 'gpt-4o', object: 'model', created: 1735689600, owned_by: 'openai' },
    ]);
    assert.equal(res.statusCode, 200);
  });
});

describe('a request only its own format has (POST /v1/responses/compact)', () => {
  const COMPACTED = JSON.stringify({
    id: 'resp_c',
    object: 'response.compaction',
    output: [{ type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA' }],
    usage: { input_tokens: 40, output_tokens: 5 },
  });
  const body = { model: 'gpt-4o', input: 'a long history' };

  test('skips the lines of other formats and passes through to a Responses line, billed from its usage', async () => {
    const r = await call(
      WIRE['openai-responses'],
      '/v1/responses/compact',
      { body },
      [
        line('claude', { protocol: 'anthropic', baseUrl: 'https://a.example', priority: 10 }),
        line('oai', { protocol: 'openai-responses' }),
      ],
      [COMPACTED],
    );
    assert.equal(r.upstream.calls.length, 1);
    assert.equal(r.upstream.calls[0]!.url.href, 'https://oai.example/v1/responses/compact');
    assert.match(r.res.body, /tollgate\.l1\.oai\.gAAAA/, 'the compaction goes out bound to its line');
    assert.deepEqual(
      r.seen.charges.map((c) => [c.status, c.usage?.inputTokens, c.usage?.outputTokens]),
      [[200, 40, 5]],
    );
  });

  test('a model no Responses line serves is a 400 before any upstream call', async () => {
    await assert.rejects(
      call(
        WIRE['openai-responses'],
        '/v1/responses/compact',
        { body },
        [line('claude', { protocol: 'anthropic', baseUrl: 'https://a.example' })],
        [],
      ),
      (err: GatewayError) => err.status === 400 && err.code === 'unsupported_endpoint' && err.param === 'model',
    );
  });
});
