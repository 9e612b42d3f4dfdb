/**
 * Property-style round trips between the two Anthropic sides: canonical → provider wire →
 * inbound decode (and the reverse for answers and streams) must give back what went in.
 * The generators produce only what Messages can carry, already in the form toRequest sends:
 * - user and assistant turns alternate and start with user; no mid-conversation system messages
 *   (toRequest turns them into <system-reminder> user text, tested in to-request.test.ts);
 * - tool_result blocks lead their user turn; no empty text blocks (Anthropic rejects them);
 * - thinking is Anthropic's and signed; tool calls carry no signature; tool results no name;
 * - max_tokens is always set; temperature ∈ [0,1]; effort (low/medium/high) only with adaptive
 *   thinking; tool_choice only with tools; no response_format, seed or penalties;
 * - usage has no separate audio/image input; stream start usage has a prompt figure > 0 and no
 *   thinking tokens; stream errors compare by kind and message (the client-facing type is
 *   coarser than GatewayError).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalResponse,
  ContentBlock,
  ImageBlock,
  StopReason,
  StreamEvent,
  TextBlock,
} from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { readSse } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/anthropic/decode.js';
import { encodeResponse } from '../../../gateway/wire/anthropic/encode.js';
import { encodeStream } from '../../../gateway/wire/anthropic/encode-stream.js';
import { fromResponse } from '../../../gateway/wire/anthropic/from-response.js';
import { fromStream } from '../../../gateway/wire/anthropic/from-stream.js';
import { toRequest } from '../../../gateway/wire/anthropic/to-request.js';
import { mulberry32 } from '../../helpers/seeded.js';

const RUNS = 300;

class Gen {
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  bool(p = 0.5): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)] as T;
  }
  many<T>(lo: number, hi: number, f: () => T): T[] {
    return Array.from({ length: this.int(lo, hi) }, f);
  }
  word(): string {
    return this.pick(['alpha', 'héllo', '你好', '🙂', 'a"b', 'line\nbreak', 'tab\t', '</x>', ' ', '{', 'back\\slash']);
  }
  text(): string {
    return this.many(1, 4, () => this.word()).join(this.pick([' ', '', '\n']));
  }
  id(prefix: string): string {
    return `${prefix}${this.int(0, 1e9).toString(36)}${this.pick(['', '_x', '-Y'])}`;
  }
  json(depth = 0): unknown {
    const kind = this.int(0, depth > 1 ? 3 : 5);
    if (kind === 0) return this.text();
    if (kind === 1) return this.int(-1000, 1000) / this.pick([1, 4]);
    if (kind === 2) return this.pick([true, false, null]);
    if (kind === 3) return this.word();
    if (kind === 4) return this.many(0, 3, () => this.json(depth + 1));
    return this.object(depth + 1);
  }
  object(depth = 0): Record<string, unknown> {
    return Object.fromEntries(
      this.many(0, 3, () => [this.pick(['a', 'path', 'ключ', 'x y', 'n']) + String(this.int(0, 9)), this.json(depth)]),
    );
  }
  maybe<T extends object>(p: number, extra: () => T): T | Record<string, never> {
    return this.bool(p) ? extra() : {};
  }
  cache(): { cacheControl?: { type: 'ephemeral'; ttl?: '5m' | '1h' } } {
    return this.maybe(0.2, () => ({
      cacheControl: this.bool()
        ? { type: 'ephemeral' as const }
        : { type: 'ephemeral' as const, ttl: this.pick(['5m', '1h'] as const) },
    }));
  }
  usage(): Usage {
    const output = this.int(0, 5000);
    return {
      ...emptyUsage(),
      inputTokens: this.int(1, 90_000),
      cacheReadTokens: this.pick([0, this.int(1, 200_000)]),
      cacheWriteTokens: this.pick([0, this.int(1, 9_000)]),
      cacheWrite1hTokens: this.pick([0, this.int(1, 9_000)]),
      outputTokens: output,
      reasoningTokens: this.pick([0, this.int(0, output)]),
    };
  }
}

function textBlock(g: Gen): TextBlock {
  return {
    type: 'text',
    text: g.text(),
    ...g.cache(),
    ...g.maybe(0.1, () => ({
      citations: [
        { type: 'char_location', cited_text: g.text(), document_index: 0, start_char_index: 0, end_char_index: 3 },
      ],
    })),
  };
}

function image(g: Gen): ImageBlock {
  const source = g.pick([
    { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    { kind: 'url' as const, url: `https://example.com/${g.int(0, 99)}.jpg` },
    { kind: 'file' as const, fileId: g.id('file_') },
  ]);
  return { type: 'image', source, ...g.cache() };
}

function userBlock(g: Gen): ContentBlock {
  const kind = g.int(0, 5);
  if (kind === 0) return image(g);
  if (kind === 1) {
    const source = g.pick([
      { kind: 'base64' as const, mediaType: 'application/pdf', data: 'JVBERi0xLjQ=' },
      { kind: 'text' as const, mediaType: 'text/plain', data: g.text() },
      { kind: 'url' as const, url: 'https://example.com/a.pdf' },
      { kind: 'file' as const, fileId: g.id('file_') },
    ]);
    return { type: 'document', source, ...g.maybe(0.5, () => ({ title: g.text() })), ...g.cache() };
  }
  return textBlock(g);
}

function assistantBlock(g: Gen, calls: string[]): ContentBlock {
  const kind = g.int(0, 5);
  if (kind === 0) return { type: 'thinking', text: g.text(), signature: g.id('Eq'), family: 'anthropic' };
  if (kind === 1) return { type: 'redacted_thinking', data: g.id('Em'), family: 'anthropic' };
  if (kind === 2 || kind === 3) {
    const id = g.id('toolu_');
    calls.push(id);
    return { type: 'tool_call', id, name: g.pick(['Read', 'Bash', 'web_fetch']), input: g.object(), ...g.cache() };
  }
  return textBlock(g);
}

function request(g: Gen): CanonicalRequest {
  const messages: CanonicalMessage[] = [];
  let calls: string[] = [];
  for (let turn = 0, n = g.int(1, 8); turn < n; turn++) {
    if (turn % 2 === 0) {
      const results: ContentBlock[] = calls.map((toolCallId) => ({
        type: 'tool_result',
        toolCallId,
        content: g.many(0, 2, () => (g.bool(0.8) ? textBlock(g) : image(g))),
        ...g.maybe(0.3, () => ({ isError: g.bool() })),
        ...g.cache(),
      }));
      messages.push({ role: 'user', content: [...results, ...g.many(results.length ? 0 : 1, 3, () => userBlock(g))] });
      calls = [];
    } else {
      messages.push({ role: 'assistant', content: g.many(1, 4, () => assistantBlock(g, calls)) });
    }
  }
  const tools = g.many(0, 3, () => ({
    name: g.id('tool_'),
    inputSchema: { type: 'object', properties: g.object() },
    ...g.maybe(0.5, () => ({ description: g.text() })),
    ...g.maybe(0.3, () => ({ strict: g.bool() })),
    ...g.cache(),
  }));
  const req: CanonicalRequest = {
    model: g.pick(['claude-opus-4-8', 'claude-haiku-4-5']),
    system: g.many(0, 3, () => textBlock(g)),
    messages,
    tools,
    maxOutputTokens: g.int(1, 64_000),
    stream: g.bool(),
    notes: [],
  };
  if (tools.length > 0 && g.bool()) {
    const parallel = g.maybe(0.5, () => ({ disableParallel: g.bool() }));
    req.toolChoice = g.pick([
      { type: 'auto', ...parallel },
      { type: 'any', ...parallel },
      { type: 'none' },
      { type: 'tool', name: g.pick(tools).name, ...parallel },
    ]);
  }
  const thinking = g.int(0, 3);
  if (thinking === 1) req.thinking = { type: 'enabled', budgetTokens: g.int(1024, 32_000) };
  if (thinking === 2) req.thinking = { type: 'disabled' };
  if (thinking === 3) {
    req.thinking = { type: 'adaptive' };
    if (g.bool()) req.reasoningEffort = g.pick(['low', 'medium', 'high'] as const);
  }
  // Anthropic wants a tool loop in progress to open with thinking when thinking is on (docs/protocols.md §6.6).
  const opener = messages.at(-2);
  if (
    req.thinking &&
    req.thinking.type !== 'disabled' &&
    opener?.role === 'assistant' &&
    messages.at(-1)?.content.some((b) => b.type === 'tool_result') &&
    opener.content[0]?.type !== 'thinking'
  ) {
    opener.content.unshift({ type: 'thinking', text: g.text(), signature: g.id('Eq'), family: 'anthropic' });
  }
  if (g.bool()) req.temperature = g.int(0, 10) / 10;
  if (g.bool(0.3)) req.topP = g.int(1, 10) / 10;
  if (g.bool(0.3)) req.topK = g.int(1, 100);
  if (g.bool(0.3)) req.stopSequences = g.many(0, 3, () => g.text());
  if (g.bool(0.3)) req.user = JSON.stringify({ device_id: g.id('d'), session_id: g.id('s') });
  return req;
}

const STOP_REASONS: StopReason[] = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'refusal',
  'pause_turn',
  'context_exceeded',
];

function response(g: Gen): CanonicalResponse {
  const content = g
    .many(0, 5, () => assistantBlock(g, []))
    .map((b) =>
      b.type === 'tool_call'
        ? { type: b.type, id: b.id, name: b.name, input: b.input }
        : b.type === 'text'
          ? { ...b, cacheControl: undefined }
          : b,
    );
  const res: CanonicalResponse = {
    id: g.id('msg_'),
    model: 'claude-opus-4-8',
    content: JSON.parse(JSON.stringify(content)) as ContentBlock[],
    stopReason: g.pick(STOP_REASONS),
    usage: g.usage(),
  };
  if (g.bool(0.2)) res.stopSequence = g.text();
  return res;
}

function stream(g: Gen): StreamEvent[] {
  const events: StreamEvent[] = [
    {
      type: 'start',
      id: g.id('msg_'),
      model: 'claude-opus-4-8',
      usage: { ...g.usage(), outputTokens: g.int(0, 3), reasoningTokens: 0 },
    },
  ];
  for (let index = 0, n = g.int(0, 5); index < n; index++) {
    const kind = g.int(0, 3);
    if (kind === 0) {
      events.push(
        { type: 'block_start', index, block: { type: 'text' } },
        ...g.many(1, 3, (): StreamEvent => ({ type: 'text_delta', index, text: g.text() })),
      );
    } else if (kind === 1) {
      events.push(
        { type: 'block_start', index, block: { type: 'thinking', family: 'anthropic' } },
        ...g.many(1, 3, (): StreamEvent => ({ type: 'thinking_delta', index, text: g.text() })),
        { type: 'signature_delta', index, signature: g.id('Eq') },
      );
    } else if (kind === 2) {
      events.push({
        type: 'block_start',
        index,
        block: { type: 'redacted_thinking', data: g.id('Em'), family: 'anthropic' },
      });
    } else {
      const json = JSON.stringify(g.object());
      const cuts = [...new Set(g.many(0, 3, () => g.int(1, json.length - 1)))]
        .filter((c) => c > 0 && c < json.length)
        .sort((a, b) => a - b);
      const pieces = [0, ...cuts].map((from, i) => json.slice(from, [...cuts, json.length][i]));
      events.push(
        { type: 'block_start', index, block: { type: 'tool_call', id: g.id('toolu_'), name: 'Read' } },
        ...pieces.map((piece): StreamEvent => ({ type: 'tool_args_delta', index, json: piece })),
      );
    }
    events.push({ type: 'block_stop', index });
  }
  if (g.bool(0.15)) {
    events.push({
      type: 'error',
      error: new GatewayError(g.pick(['upstream_error', 'upstream_unavailable'] as const), g.text()),
    });
  } else {
    const stopSequence = g.maybe(0.2, () => ({ stopSequence: g.text() }));
    events.push({
      type: 'stop',
      stopReason: g.pick(STOP_REASONS),
      ...stopSequence,
      usage: { ...(events[0] as { usage: Usage }).usage, outputTokens: g.int(3, 9000) },
    });
  }
  return events;
}

/** Splits text at random byte offsets, as a network would (multi-byte characters included). */
async function* chunks(g: Gen, text: string): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length;) {
    const n = g.int(1, 64);
    yield bytes.slice(i, i + n);
    i += n;
  }
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

describe('round trips', () => {
  test(`requests: decodeRequest(toRequest(x).body) deep-equals x, with no notes (${RUNS} seeds)`, () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const x = request(new Gen(mulberry32(seed)));
      const expected = structuredClone(x);
      const wire = JSON.parse(JSON.stringify(toRequest(x).body)) as unknown;
      assert.deepEqual(x.notes, [], `seed ${seed}: nothing should have been dropped`);
      assert.deepEqual(decodeRequest(wire), expected, `seed ${seed}`);
    }
  });

  test(`responses: fromResponse(encodeResponse(x)) deep-equals x (${RUNS} seeds)`, () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const x = response(new Gen(mulberry32(seed)));
      const wire = JSON.parse(
        JSON.stringify(encodeResponse(x, { requestedModel: x.model, requestId: 'req_1' })),
      ) as unknown;
      assert.deepEqual(fromResponse(wire), x, `seed ${seed}`);
    }
  });

  test(`streams: encodeStream → bytes → readSse → fromStream gives back the events (${RUNS} seeds)`, async () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const g = new Gen(mulberry32(seed));
      const x = stream(g);
      const start = x[0] as { model: string };
      let text = '';
      for await (const chunk of encodeStream(from(x), { requestedModel: start.model, requestId: 'req_1' }))
        text += chunk;
      const back: StreamEvent[] = [];
      for await (const ev of fromStream(readSse(chunks(g, text)), emptyUsage())) back.push(ev);
      const last = x.at(-1);
      const lastBack = back.at(-1);
      if (last?.type === 'error' && lastBack?.type === 'error') {
        assert.equal(lastBack.error.kind, last.error.kind, `seed ${seed}`);
        assert.ok(lastBack.error.message.endsWith(last.error.message), `seed ${seed}: ${lastBack.error.message}`);
        x.pop();
        back.pop();
      }
      assert.deepEqual(back, x, `seed ${seed}`);
    }
  });
});
