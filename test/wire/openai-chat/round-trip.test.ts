/**
 * Property-style round trips between the openai-chat inbound codec and the openai-chat provider,
 * over many seeded random canonical values restricted to what Chat Completions can carry. Each
 * `expected…` function states the documented normalisations (joins, thinking as unsigned
 * reasoning_content, usage buckets OpenAI has no field for); anything else must come back unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalResponse,
  ContentBlock,
  StopReason,
  StreamEvent,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../../../gateway/core/canonical.js';
import { readSse } from '../../../gateway/core/sse.js';
import type { Usage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/openai-chat/decode.js';
import { encodeResponse } from '../../../gateway/wire/openai-chat/encode.js';
import { encodeStream } from '../../../gateway/wire/openai-chat/encode-stream.js';
import { fromResponse } from '../../../gateway/wire/openai-chat/from-response.js';
import { fromStream } from '../../../gateway/wire/openai-chat/from-stream.js';
import { toRequest } from '../../../gateway/wire/openai-chat/to-request.js';
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
  '  spaced  ',
];
const text = (r: R): string => r.many(1, 4, () => r.pick(WORDS)).join(' ');
const textBlock = (r: R): TextBlock =>
  r.chance(0.2)
    ? { type: 'text', text: text(r), cacheControl: { type: 'ephemeral' } }
    : { type: 'text', text: text(r) };

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

function media(r: R): ContentBlock {
  if (r.chance(0.5)) {
    const source = r.chance(0.5)
      ? { kind: 'base64' as const, mediaType: r.pick(['image/png', 'image/jpeg']), data: 'iVBORw0KGgo=' }
      : { kind: 'url' as const, url: 'https://example.com/i.png' };
    return r.chance(0.5)
      ? { type: 'image', source, detail: r.pick(['auto', 'low', 'high'] as const) }
      : { type: 'image', source };
  }
  const source = r.chance(0.5)
    ? { kind: 'base64' as const, mediaType: 'application/pdf', data: 'JVBERi0=' }
    : { kind: 'file' as const, fileId: 'file-abc' };
  return r.chance(0.5) ? { type: 'document', source, title: 'doc.pdf' } : { type: 'document', source };
}

let callSeq = 0;
function genRequest(r: R): CanonicalRequest {
  const tools = r.many(0, 3, () => ({
    name: `tool_${r.int(0, 99)}`,
    inputSchema: { type: 'object', properties: object(r) },
    ...(r.chance(0.5) ? { description: text(r) } : {}),
    ...(r.chance(0.5) ? { strict: r.chance(0.5) } : {}),
  }));
  const messages: CanonicalMessage[] = [
    { role: 'user', content: r.many(1, 3, () => (r.chance(0.7) ? textBlock(r) : media(r))) },
  ];
  for (let turn = r.int(0, 4); turn > 0; turn--) {
    const calls: ToolCallBlock[] = r.many(0, 3, () => ({
      type: 'tool_call',
      id: `call_${callSeq++}`,
      name: r.pick(['read', 'write', 'ls']),
      input: object(r),
    }));
    const texts = r.many(calls.length ? 0 : 1, 2, () => textBlock(r));
    messages.push({ role: 'assistant', content: r.chance(0.5) ? [...texts, ...calls] : [...calls, ...texts] });
    if (r.chance(0.2)) messages.push({ role: 'system', content: r.many(1, 2, () => textBlock(r)) });
    const results: ToolResultBlock[] = calls.map((c) => ({
      type: 'tool_result',
      toolCallId: c.id,
      name: c.name,
      content: r.many(0, 2, () => textBlock(r)),
      ...(r.chance(0.3) ? { isError: true } : {}),
    }));
    const rest = r.many(results.length ? 0 : 1, 2, () => (r.chance(0.7) ? textBlock(r) : media(r)));
    messages.push({ role: 'user', content: r.chance(0.5) ? [...results, ...rest] : [...rest, ...results] });
  }
  const req: CanonicalRequest = {
    model: r.pick(['gpt-up', 'qwen3']),
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
  if (r.chance(0.3)) req.seed = r.int(0, 1e9);
  if (r.chance(0.3)) req.presencePenalty = r.int(-200, 200) / 100;
  if (r.chance(0.3)) req.frequencyPenalty = r.int(-200, 200) / 100;
  if (r.chance(0.3)) req.stopSequences = r.many(1, 4, () => text(r));
  if (r.chance(0.3)) req.user = `user-${r.int(0, 99)}`;
  if (r.chance(0.3)) req.reasoningEffort = r.pick(['minimal', 'low', 'medium', 'high'] as const);
  if (r.chance(0.3))
    req.responseFormat = r.pick([
      { type: 'text' },
      { type: 'json_object' },
      { type: 'json_schema', name: 'out', schema: object(r), ...(r.chance(0.5) ? { strict: true } : {}) },
    ]);
  return req;
}

const plain = (t: string): TextBlock => ({ type: 'text', text: t });
const joined = (bs: ContentBlock[], sep: string): string =>
  bs.map((b) => (b.type === 'text' ? b.text : '[image omitted]')).join(sep);
function strip<T extends object>(b: T): T {
  const { cacheControl: _dropped, ...rest } = b as T & { cacheControl?: unknown };
  return rest as T;
}

/** The documented normalisations of toRequest → decodeRequest (see to-request.ts and decode.ts). */
function expectedRequest(x: CanonicalRequest): CanonicalRequest {
  const names = new Map<string, string>();
  const messages: CanonicalMessage[] = [];
  for (const m of x.messages) {
    if (m.role === 'system') messages.push({ role: 'system', content: [plain(joined(m.content, '\n\n'))] });
    else if (m.role === 'assistant') {
      const t = joined(
        m.content.filter((b) => b.type === 'text'),
        '',
      );
      const calls = m.content.filter((b): b is ToolCallBlock => b.type === 'tool_call').map(strip);
      calls.forEach((c) => names.set(c.id, c.name));
      messages.push({ role: 'assistant', content: [...(t ? [plain(t)] : []), ...calls] });
    } else {
      const results = m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
      const rest = m.content.filter((b) => b.type !== 'tool_result').map(strip);
      if (results.length) {
        const content = results.map((b): ToolResultBlock => {
          const t = joined(b.content, '\n\n');
          const body = b.isError ? (t ? `Error: ${t}` : 'Error') : t;
          const name = names.get(b.toolCallId);
          return {
            type: 'tool_result',
            toolCallId: b.toolCallId,
            ...(name ? { name } : {}),
            content: body ? [plain(body)] : [],
          };
        });
        messages.push({ role: 'user', content });
      }
      if (rest.length) messages.push({ role: 'user', content: rest });
    }
  }
  const out: CanonicalRequest = {
    ...x,
    system: x.system.length ? [plain(joined(x.system, '\n\n'))] : [],
    messages,
    tools: x.tools.map(strip),
  };
  const c = x.toolChoice;
  if (!x.tools.length || !c) delete out.toolChoice;
  else if (c.type !== 'none' && !c.disableParallel)
    out.toolChoice = c.type === 'tool' ? { type: 'tool', name: c.name } : { type: c.type };
  return out;
}

test(`requests: decodeRequest(toRequest(x).body) equals x up to the documented joins (${RUNS} seeds)`, () => {
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
/** OpenAI has buckets only for cached and audio input: writes and images come back as plain input. */
const expectedUsage = (u: Usage): Usage => ({
  ...u,
  inputTokens: u.inputTokens + u.cacheWriteTokens + u.cacheWrite1hTokens + u.imageInputTokens,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  imageInputTokens: 0,
});
function expectedStop(s: StopReason, hadCalls: boolean): StopReason {
  if (s === 'max_tokens' || s === 'context_exceeded') return 'max_tokens';
  if (s === 'refusal') return 'refusal';
  return hadCalls ? 'tool_use' : s === 'tool_use' ? 'tool_use' : 'end_turn';
}

test(`responses: fromResponse(encodeResponse(x)) equals x up to joins and usage buckets (${RUNS} seeds)`, () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const r = rng(seed);
    const content = r.many(0, 5, (): ContentBlock =>
      r.pick([
        () => textBlock(r),
        () => ({ type: 'thinking' as const, text: text(r), signature: 's' }),
        () => ({ type: 'tool_call' as const, id: `call_${r.int(0, 999)}`, name: 'f', input: object(r) }),
      ])(),
    );
    const x: CanonicalResponse = {
      id: r.chance(0.5) ? 'chatcmpl-up' : 'msg_up',
      model: 'upstream',
      content,
      stopReason: r.pick(STOPS),
      usage: genUsage(r),
    };
    const back = fromResponse(JSON.parse(JSON.stringify(encodeResponse(x, ctx))));
    const t = joined(
      content.filter((b) => b.type === 'text'),
      '',
    );
    const thoughts = content.flatMap((b) => (b.type === 'thinking' ? [b.text] : [])).join('\n\n');
    const thinking: ContentBlock[] = thoughts ? [{ type: 'thinking', text: thoughts, family: 'openai-chat' }] : [];
    const calls = content.filter((b) => b.type === 'tool_call');
    assert.deepEqual(
      back,
      {
        id: x.id === 'chatcmpl-up' ? x.id : 'chatcmpl-42',
        model: 'client-alias',
        content: [...thinking, ...(t ? [plain(t)] : []), ...calls],
        stopReason: expectedStop(x.stopReason, calls.length > 0),
        usage: expectedUsage(x.usage),
      },
      `seed ${seed}`,
    );
  }
});

function genStream(r: R): StreamEvent[] {
  const events: StreamEvent[] = [
    { type: 'start', id: r.chance(0.5) ? 'chatcmpl-s' : 'msg_s', model: 'upstream', usage: genUsage(r) },
  ];
  r.many(0, 5, () => r.pick(['text', 'thinking', 'tool'] as const)).forEach((kind, index) => {
    if (kind === 'tool') {
      const args = JSON.stringify(object(r));
      const cuts = [...new Set(r.many(0, 3, () => r.int(1, args.length - 1)))].sort((a, b) => a - b);
      events.push({ type: 'block_start', index, block: { type: 'tool_call', id: `call_${index}`, name: 'f' } });
      [0, ...cuts].forEach((c, i) =>
        events.push({ type: 'tool_args_delta', index, json: args.slice(c, [...cuts, args.length][i]) }),
      );
    } else {
      events.push({ type: 'block_start', index, block: { type: kind } });
      r.many(1, 3, () => text(r)).forEach((t) =>
        events.push(
          kind === 'text' ? { type: 'text_delta', index, text: t } : { type: 'thinking_delta', index, text: t },
        ),
      );
    }
    events.push({ type: 'block_stop', index });
  });
  events.push({ type: 'stop', stopReason: r.pick(STOPS), usage: genUsage(r) });
  return events;
}

/** Thinking as unsigned reasoning_content, adjacent blocks of one text kind merged into one, blocks renumbered, usage re-bucketed. */
function expectedStream(x: StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  let index = -1;
  let lastKind: string | undefined;
  let hadCalls = false;
  const kinds = new Map<number, string>();
  for (const e of x) {
    if (e.type === 'start') out.push({ ...e, id: e.id === 'chatcmpl-s' ? e.id : 'chatcmpl-42', model: 'client-alias' });
    else if (e.type === 'block_start') {
      kinds.set(e.index, e.block.type);
      if (e.block.type !== 'tool_call' && lastKind === e.block.type) continue;
      if (lastKind !== undefined) out.push({ type: 'block_stop', index });
      lastKind = e.block.type;
      hadCalls ||= e.block.type === 'tool_call';
      out.push({
        ...e,
        index: ++index,
        ...(e.block.type === 'thinking' ? { block: { type: 'thinking', family: 'openai-chat' } } : {}),
      });
    } else if (e.type === 'text_delta' || e.type === 'thinking_delta' || e.type === 'tool_args_delta')
      out.push({ ...e, index });
    else if (e.type === 'stop') {
      if (lastKind !== undefined) out.push({ type: 'block_stop', index });
      out.push({ type: 'stop', stopReason: expectedStop(e.stopReason, hadCalls), usage: expectedUsage(e.usage) });
    }
  }
  return out;
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

test(`streams: fromStream(readSse(encodeStream(x))) equals x up to the same normalisations (${RUNS} seeds)`, async () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const x = genStream(rng(seed));
    let sse = '';
    for await (const s of encodeStream(from(x), ctx, { includeUsage: true })) sse += s;
    const back: StreamEvent[] = [];
    const start = x[0]!;
    for await (const e of fromStream(readSse(from([sse])), start.type === 'start' ? start.usage : genUsage(rng(0))))
      back.push(e);
    assert.deepEqual(back, expectedStream(x), `seed ${seed}`);
  }
});
