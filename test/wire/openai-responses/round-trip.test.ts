/**
 * Property-style round trips between the openai-responses inbound codec and the openai-responses
 * provider, over many seeded random canonical values. Each `expected…` function states the
 * documented normalisations; anything else must come back unchanged:
 * - requests: system joined into `instructions`; a user turn's tool results become their own user
 *   message ahead of the rest; tool-result text joined and `isError` said in the text; `strict`,
 *   image `detail` and a base64 document's filename get their defaults; thinking not signed by
 *   OpenAI, signatures on tool calls, cache_control, stop sequences, seed and top_k are dropped;
 *   a thinking budget becomes an effort level; max_output_tokens is at least 16;
 * - answers and streams: ids and model are the client-facing ones; thinking keeps its text and
 *   its proof: OpenAI's own `encrypted_content`, else Tollgate's mark of the block's family and
 *   signature, which reads back here as an OpenAI-looking signature (docs/protocols.md §6.6);
 *   redacted thinking and a call's own signature become marked reasoning items; stop reasons fold
 *   into completed/incomplete; audio and image input come back as plain input; stream errors
 *   compare by kind and message.
 */
import { test } from 'node:test';
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
  ToolCallBlock,
  ToolResultBlock,
} from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { mark, markThinking } from '../../../gateway/core/reasoning.js';
import { readSse } from '../../../gateway/core/sse.js';
import type { Usage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/openai-responses/decode.js';
import { encodeResponse } from '../../../gateway/wire/openai-responses/encode.js';
import { encodeStream } from '../../../gateway/wire/openai-responses/encode-stream.js';
import { fromResponse } from '../../../gateway/wire/openai-responses/from-response.js';
import { fromStream } from '../../../gateway/wire/openai-responses/from-stream.js';
import { toRequest } from '../../../gateway/wire/openai-responses/to-request.js';
import { rng, type Rng } from '../../helpers/seeded.js';

const RUNS = 300;
const ctx = { requestedModel: 'client-alias', requestId: 'req_42' };

type R = Rng;

const WORDS = [
  'hello',
  'naïve café',
  '你好',
  '🙂 emoji',
  'line\nbreak',
  'quote "q"',
  'back\\slash',
  'tab\there',
  '{"json":1}',
  'data: [DONE]',
  'event: x',
  '  spaced  ',
];
const text = (r: R): string => r.many(1, 4, () => r.pick(WORDS)).join(' ');
const textBlock = (r: R): TextBlock =>
  r.chance(0.2)
    ? { type: 'text', text: text(r), cacheControl: { type: 'ephemeral' } }
    : { type: 'text', text: text(r) };
const plain = (t: string): TextBlock => ({ type: 'text', text: t });

function json(r: R, depth = 0): unknown {
  const kind = r.int(0, depth > 2 ? 3 : 5);
  if (kind === 0) return text(r);
  if (kind === 1) return r.int(-1000, 1000) / (r.chance(0.5) ? 1 : 8);
  if (kind === 2) return r.chance(0.5);
  if (kind === 3) return null;
  if (kind === 4) return r.many(0, 3, () => json(r, depth + 1));
  return object(r, depth + 1);
}
const object = (r: R, depth = 0): Record<string, unknown> =>
  Object.fromEntries(r.many(0, 3, () => [r.pick(['a', 'path', 'ünï', 'deep key', 'x']) + r.int(0, 9), json(r, depth)]));

function image(r: R): ImageBlock {
  const source = r.pick([
    { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    { kind: 'url' as const, url: 'https://example.com/i.png' },
    { kind: 'file' as const, fileId: 'file-img' },
  ]);
  return r.chance(0.5)
    ? { type: 'image', source, detail: r.pick(['auto', 'low', 'high'] as const) }
    : { type: 'image', source };
}

function media(r: R): ContentBlock {
  if (r.chance(0.5)) return image(r);
  const source = r.pick([
    { kind: 'base64' as const, mediaType: 'application/pdf', data: 'JVBERi0=' },
    { kind: 'file' as const, fileId: 'file-abc' },
    { kind: 'url' as const, url: 'https://example.com/d.pdf' },
    { kind: 'text' as const, mediaType: 'text/plain', data: text(r) },
  ]);
  return r.chance(0.5) ? { type: 'document', source, title: 'doc.pdf' } : { type: 'document', source };
}

function assistantBlock(r: R, calls: ToolCallBlock[]): ContentBlock {
  const kind = r.int(0, 7);
  if (kind === 0)
    return {
      type: 'thinking',
      text: r.chance(0.3) ? '' : text(r),
      signature: `gAAAA${r.int(0, 1e6)}`,
      family: 'openai',
    };
  if (kind === 1)
    return r.pick([
      { type: 'thinking', text: text(r), signature: 'sig', family: 'anthropic' } as const,
      { type: 'thinking', text: text(r), family: 'openai' } as const,
      { type: 'redacted_thinking', data: 'x', family: 'anthropic' } as const,
    ]);
  if (kind <= 4) {
    const call: ToolCallBlock = {
      type: 'tool_call',
      id: `call_${r.int(0, 1e9)}`,
      name: r.pick(['read', 'write', 'ls']),
      input: object(r),
      ...(r.chance(0.1) ? { signature: 'g', signatureFamily: 'gemini' as const } : {}),
    };
    calls.push(call);
    return call;
  }
  return textBlock(r);
}

function genRequest(r: R): CanonicalRequest {
  // Distinct names: upstreams refuse duplicates, and decode drops them (tested in decode.test.ts).
  const tools = r.many(0, 3, () => ({
    name: `tool_${r.int(0, 99)}`,
    inputSchema: { type: 'object', properties: object(r) },
    ...(r.chance(0.5) ? { description: text(r) } : {}),
    ...(r.chance(0.5) ? { strict: r.chance(0.5) } : {}),
  }));
  tools.forEach((t, i) => (t.name += `_${i}`));
  const messages: CanonicalMessage[] = [
    { role: 'user', content: r.many(1, 3, () => (r.chance(0.6) ? textBlock(r) : media(r))) },
  ];
  for (let turn = r.int(0, 4); turn > 0; turn--) {
    const calls: ToolCallBlock[] = [];
    messages.push({ role: 'assistant', content: r.many(1, 4, () => assistantBlock(r, calls)) });
    if (r.chance(0.2)) messages.push({ role: 'system', content: r.many(1, 2, () => textBlock(r)) });
    const results: ToolResultBlock[] = calls.map((c) => ({
      type: 'tool_result',
      toolCallId: c.id,
      name: c.name,
      content: r.many(0, 2, () => (r.chance(0.8) ? textBlock(r) : image(r))),
      ...(r.chance(0.3) ? { isError: true } : {}),
    }));
    const rest = r.many(results.length ? 0 : 1, 2, () => (r.chance(0.7) ? textBlock(r) : media(r)));
    messages.push({ role: 'user', content: r.chance(0.5) ? [...results, ...rest] : [...rest, ...results] });
  }
  const req: CanonicalRequest = {
    model: r.pick(['gpt-5', 'o4-mini']),
    system: r.many(0, 3, () => textBlock(r)),
    messages,
    tools,
    stream: r.chance(0.5),
    notes: [],
  };
  if (tools.length && r.chance(0.7)) {
    const dp = r.chance(0.5) ? { disableParallel: r.chance(0.5) } : {};
    req.toolChoice = r.pick([
      { type: 'none' },
      { type: 'auto', ...dp },
      { type: 'any', ...dp },
      { type: 'tool', name: tools[0]!.name, ...dp },
    ]);
  }
  if (r.chance(0.5)) req.maxOutputTokens = r.int(1, 100_000);
  if (r.chance(0.5)) req.temperature = r.int(0, 200) / 100;
  if (r.chance(0.5)) req.topP = r.int(1, 100) / 100;
  if (r.chance(0.2)) req.seed = r.int(0, 1e9);
  if (r.chance(0.2)) req.topK = r.int(1, 50);
  if (r.chance(0.2)) req.stopSequences = r.many(1, 3, () => text(r));
  if (r.chance(0.3)) req.user = `user-${r.int(0, 99)}`;
  if (r.chance(0.3)) req.reasoningEffort = r.pick(['minimal', 'low', 'medium', 'high'] as const);
  if (r.chance(0.3))
    req.thinking = r.pick([
      { type: 'enabled', budgetTokens: r.int(1024, 32_000) },
      { type: 'disabled' },
      { type: 'adaptive' },
    ] as const);
  if (r.chance(0.3))
    req.responseFormat = r.pick([
      { type: 'text' },
      { type: 'json_object' },
      { type: 'json_schema', name: 'out', schema: object(r), ...(r.chance(0.5) ? { strict: true } : {}) },
    ] as const);
  return req;
}

function strip<T extends object>(b: T): T {
  const {
    cacheControl: _c,
    signature: _s,
    signatureFamily: _f,
    ...rest
  } = b as T & { cacheControl?: unknown; signature?: unknown; signatureFamily?: unknown };
  return rest as T;
}
const joined = (bs: readonly ContentBlock[]): string => bs.map((b) => (b.type === 'text' ? b.text : '')).join('\n\n');

/** What the decoder gives back for a user-side block (see to-request.ts documentPart/imagePart). */
function expectedPart(b: ContentBlock): ContentBlock {
  if (b.type === 'image') return { ...b, detail: b.detail ?? 'auto' };
  if (b.type === 'document' && b.source.kind === 'text') return plain(b.source.data);
  if (b.type === 'document' && b.source.kind === 'base64' && b.title === undefined)
    return { ...b, title: 'document.pdf' };
  return strip(b);
}

function expectedResult(b: ToolResultBlock, names: Map<string, string>): ToolResultBlock {
  let content: ToolResultBlock['content'];
  if (b.content.every((c) => c.type === 'text')) {
    const t = joined(b.content);
    const body = b.isError ? (t ? `Error: ${t}` : 'Error') : t;
    content = body ? [plain(body)] : [];
  } else
    content = [
      ...(b.isError ? [plain('Error:')] : []),
      ...b.content.map((c) => expectedPart(c) as TextBlock | ImageBlock),
    ];
  const name = names.get(b.toolCallId);
  return { type: 'tool_result', toolCallId: b.toolCallId, ...(name ? { name } : {}), content };
}

function expectedRequest(x: CanonicalRequest): CanonicalRequest {
  const names = new Map<string, string>();
  const messages: CanonicalMessage[] = [];
  for (const m of x.messages) {
    if (m.role === 'system') messages.push({ role: 'system', content: m.content.map(strip) });
    else if (m.role === 'assistant') {
      const content = m.content.filter(
        (b) =>
          b.type === 'text' ||
          b.type === 'tool_call' ||
          (b.type === 'thinking' && b.family === 'openai' && b.signature),
      );
      content.forEach((b) => b.type === 'tool_call' && names.set(b.id, b.name));
      if (content.length)
        messages.push({ role: 'assistant', content: content.map((b) => (b.type === 'thinking' ? b : strip(b))) });
    } else {
      const results = m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
      const rest = m.content.filter((b) => b.type !== 'tool_result');
      if (results.length) messages.push({ role: 'user', content: results.map((b) => expectedResult(b, names)) });
      if (rest.length) messages.push({ role: 'user', content: rest.map(expectedPart) });
    }
  }
  const {
    stopSequences: _s,
    seed: _seed,
    topK: _k,
    thinking,
    ...out
  } = {
    ...x,
    system: x.system.length ? [plain(joined(x.system))] : [],
    messages,
    tools: x.tools.map((t) => ({ ...strip(t), strict: t.strict ?? false })),
  };
  const c = x.toolChoice;
  if (!x.tools.length || !c) delete out.toolChoice;
  else if (c.type !== 'none' && !c.disableParallel)
    out.toolChoice = c.type === 'tool' ? { type: 'tool', name: c.name } : { type: c.type };
  if (out.maxOutputTokens !== undefined) out.maxOutputTokens = Math.max(16, out.maxOutputTokens);
  if (!out.reasoningEffort && thinking?.type === 'enabled')
    out.reasoningEffort = thinking.budgetTokens <= 2048 ? 'low' : thinking.budgetTokens <= 8192 ? 'medium' : 'high';
  return out;
}

test(`requests: decodeRequest(toRequest(x).body) equals x up to the documented normalisations (${RUNS} seeds)`, () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const x = genRequest(rng(seed));
    const wire = JSON.parse(JSON.stringify(toRequest(x).body)) as unknown;
    assert.deepEqual(decodeRequest(wire), expectedRequest(x), `seed ${seed}`);
  }
});

const STOPS: StopReason[] = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'refusal',
  'pause_turn',
  'context_exceeded',
];
function genUsage(r: R): Usage {
  const n = () => r.int(0, 5000);
  return {
    inputTokens: n(),
    cacheReadTokens: n(),
    cacheWriteTokens: n(),
    cacheWrite1hTokens: n(),
    outputTokens: n(),
    reasoningTokens: n(),
    audioInputTokens: n(),
    imageInputTokens: n(),
  };
}
/** Responses has buckets for cache reads and writes only (one for writes of either lifetime): audio and image input come back as plain input. */
const expectedUsage = (u: Usage): Usage => ({
  ...u,
  inputTokens: u.inputTokens + u.audioInputTokens + u.imageInputTokens,
  audioInputTokens: 0,
  imageInputTokens: 0,
  cacheWriteTokens: u.cacheWriteTokens + u.cacheWrite1hTokens,
  cacheWrite1hTokens: 0,
});
function expectedStop(s: StopReason, hadCalls: boolean): StopReason {
  if (s === 'max_tokens' || s === 'context_exceeded') return 'max_tokens';
  if (s === 'refusal') return 'refusal';
  return hadCalls ? 'tool_use' : 'end_turn';
}

test(`responses: fromResponse(encodeResponse(x)) equals x up to ids, thinking families and usage buckets (${RUNS} seeds)`, () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const r = rng(seed);
    const content = r.many(0, 6, () => (r.chance(0.15) ? image(r) : assistantBlock(r, [])));
    const x: CanonicalResponse = {
      id: 'msg_up',
      model: 'upstream',
      content,
      stopReason: r.pick(STOPS),
      usage: genUsage(r),
    };
    const carried = (signature: string): ContentBlock => ({ type: 'thinking', text: '', signature, family: 'openai' });
    const expected = content.flatMap((b): ContentBlock[] => {
      if (b.type === 'text') return [strip(b)];
      if (b.type === 'tool_call')
        return b.signature
          ? [
              carried(mark({ kind: 'call', family: b.signatureFamily!, callId: b.id, signature: b.signature })),
              strip(b),
            ]
          : [strip(b)];
      if (b.type === 'redacted_thinking') return [carried(mark({ kind: 'redacted', family: b.family!, data: b.data }))];
      if (b.type !== 'thinking') return [];
      const encrypted = b.family === 'openai' ? b.signature : markThinking(b);
      if (encrypted === undefined) return b.text ? [{ type: 'thinking', text: b.text, family: 'openai' }] : [];
      return [{ type: 'thinking', text: b.text, signature: encrypted, family: 'openai' }];
    });
    const back = fromResponse(JSON.parse(JSON.stringify(encodeResponse(x, ctx))));
    const calls = content.some((b) => b.type === 'tool_call');
    assert.deepEqual(
      back,
      {
        id: 'resp_42',
        model: 'client-alias',
        content: expected,
        stopReason: expectedStop(x.stopReason, calls),
        usage: expectedUsage(x.usage),
      },
      `seed ${seed}`,
    );
  }
});

function genStream(r: R): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', id: 'msg_s', model: 'upstream', usage: genUsage(r) }];
  r.many(0, 6, () => r.pick(['text', 'text', 'thinking', 'redacted', 'tool'] as const)).forEach((kind, index) => {
    if (kind === 'tool') {
      const args = JSON.stringify(object(r));
      const cuts = [...new Set(r.many(0, 3, () => r.int(1, args.length - 1)))].sort((a, b) => a - b);
      events.push({ type: 'block_start', index, block: { type: 'tool_call', id: `call_${index}`, name: 'f' } });
      [0, ...cuts].forEach((c, i) =>
        events.push({ type: 'tool_args_delta', index, json: args.slice(c, [...cuts, args.length][i]) }),
      );
    } else if (kind === 'redacted') {
      events.push({
        type: 'block_start',
        index,
        block: { type: 'redacted_thinking', data: 'zz', family: 'anthropic' },
      });
    } else {
      events.push({
        type: 'block_start',
        index,
        block:
          kind === 'text' ? { type: 'text' } : { type: 'thinking', family: r.pick(['openai', 'anthropic'] as const) },
      });
      r.many(kind === 'thinking' ? 0 : 1, 3, () => text(r)).forEach((t) =>
        events.push(
          kind === 'text' ? { type: 'text_delta', index, text: t } : { type: 'thinking_delta', index, text: t },
        ),
      );
      if (kind === 'thinking' && r.chance(0.5)) events.push({ type: 'signature_delta', index, signature: 'sig' });
    }
    events.push({ type: 'block_stop', index });
  });
  if (r.chance(0.15))
    events.push({
      type: 'error',
      error: new GatewayError(r.pick(['upstream_error', 'upstream_unavailable'] as const), text(r)),
    });
  else events.push({ type: 'stop', stopReason: r.pick(STOPS), usage: genUsage(r) });
  return events;
}

/**
 * Thinking keeps its text and comes back with its proof as a signature at its end (OpenAI's own, or
 * the mark of another family's); OpenAI's with neither text nor signature is dropped; redacted
 * thinking is a marked thinking block; blocks renumbered; ids, stop and usage as for answers.
 */
function expectedStream(x: StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  const kept = new Map<number, number>();
  const proof = new Map<number, { family?: 'openai' | 'anthropic'; signature?: string }>();
  let hadCalls = false;
  x.forEach((e, i) => {
    if (e.type === 'start') out.push({ ...e, id: 'resp_42', model: 'client-alias' });
    else if (e.type === 'block_start') {
      const later = x.slice(i);
      const hasText = later.some(
        (d) =>
          (d.type === 'thinking_delta' || d.type === 'text_delta' || d.type === 'tool_args_delta') &&
          d.index === e.index,
      );
      const signature = later.find(
        (d): d is Extract<StreamEvent, { type: 'signature_delta' }> =>
          d.type === 'signature_delta' && d.index === e.index,
      )?.signature;
      if (e.block.type === 'thinking' && e.block.family === 'openai' && !hasText && !signature) return;
      const index = kept.size;
      kept.set(e.index, index);
      hadCalls ||= e.block.type === 'tool_call';
      if (e.block.type === 'redacted_thinking') {
        out.push(
          { type: 'block_start', index, block: { type: 'thinking', family: 'openai' } },
          {
            type: 'signature_delta',
            index,
            signature: mark({ kind: 'redacted', family: 'anthropic', data: e.block.data }),
          },
        );
        return;
      }
      if (e.block.type === 'thinking') {
        proof.set(e.index, { family: e.block.family as 'openai' | 'anthropic', ...(signature ? { signature } : {}) });
        out.push({ type: 'block_start', index, block: { type: 'thinking', family: 'openai' } });
      } else out.push({ ...e, index });
    } else if (e.type === 'text_delta' || e.type === 'thinking_delta' || e.type === 'tool_args_delta') {
      if (kept.has(e.index)) out.push({ ...e, index: kept.get(e.index)! });
    } else if (e.type === 'block_stop') {
      const index = kept.get(e.index);
      if (index === undefined) return;
      const p = proof.get(e.index);
      const encrypted = p && (p.family === 'openai' ? p.signature : markThinking({ type: 'thinking', text: '', ...p }));
      if (encrypted) out.push({ type: 'signature_delta', index, signature: encrypted });
      out.push({ ...e, index });
    } else if (e.type === 'stop')
      out.push({ type: 'stop', stopReason: expectedStop(e.stopReason, hadCalls), usage: expectedUsage(e.usage) });
    else if (e.type === 'error') out.push(e);
  });
  return out;
}

/** Splits text at random byte offsets, as a network would (multi-byte characters included). */
async function* chunks(r: R, s: string): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(s);
  for (let i = 0; i < bytes.length;) {
    const n = r.int(1, 64);
    yield bytes.slice(i, i + n);
    i += n;
  }
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

test(`streams: encodeStream → bytes → readSse → fromStream equals x up to the same normalisations (${RUNS} seeds)`, async () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const r = rng(seed);
    const x = genStream(r);
    let sse = '';
    for await (const s of encodeStream(from(x), ctx)) sse += s;
    const start = x[0] as Extract<StreamEvent, { type: 'start' }>;
    const back: StreamEvent[] = [];
    for await (const e of fromStream(readSse(chunks(r, sse)), start.usage)) back.push(e);
    const expected = expectedStream(x);
    const last = expected.at(-1);
    const lastBack = back.at(-1);
    if (last?.type === 'error' && lastBack?.type === 'error') {
      assert.equal(lastBack.error.kind, 'upstream_error', `seed ${seed}`);
      assert.ok(lastBack.error.message.endsWith(last.error.message), `seed ${seed}: ${lastBack.error.message}`);
      expected.pop();
      back.pop();
    }
    assert.deepEqual(back, expected, `seed ${seed}`);
  }
});
