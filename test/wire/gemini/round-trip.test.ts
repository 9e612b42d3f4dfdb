/**
 * Property-style round trips between the gemini inbound codec and the gemini provider, over many
 * seeded random canonical values restricted to what Gemini can carry. Each `expected…` function
 * states the documented normalisations (merged turns, results first and in call order, foreign ids
 * replaced, signature placeholders, thinking mapped by model generation, usage buckets Gemini has
 * no field for); anything else must come back unchanged.
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
import { mark, type CarriedBlock } from '../../../gateway/core/reasoning.js';
import { readSse } from '../../../gateway/core/sse.js';
import type { Usage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/gemini/decode.js';
import { encodeResponse } from '../../../gateway/wire/gemini/encode.js';
import { encodeStream } from '../../../gateway/wire/gemini/encode-stream.js';
import { fromResponse } from '../../../gateway/wire/gemini/from-response.js';
import { fromStream } from '../../../gateway/wire/gemini/from-stream.js';
import { toRequest } from '../../../gateway/wire/gemini/to-request.js';
import { rng, type Rng } from '../../helpers/seeded.js';
import { media, object, PNG, schema, text, textBlock } from './generate.js';

const RUNS = 300;
const ctx = { requestedModel: 'client-alias', requestId: 'req_42' };
const SKIP = 'skip_thought_signature_validator';

type R = Rng;

let callSeq = 0;
function genRequest(r: R): CanonicalRequest {
  const tools = r.many(0, 3, () => ({
    name: `tool_${r.int(0, 99)}`,
    inputSchema: schema(r),
    ...(r.chance(0.5) ? { description: text(r) } : {}),
    ...(r.chance(0.3) ? { strict: true } : {}),
  }));
  const messages: CanonicalMessage[] = [
    { role: 'user', content: r.many(1, 3, () => (r.chance(0.7) ? textBlock(r) : media(r))) },
  ];
  for (let turn = r.int(0, 4); turn > 0; turn--) {
    const gemini = r.chance(0.4);
    const calls: ToolCallBlock[] = r.many(0, 3, () => ({
      type: 'tool_call',
      id: gemini ? `g${callSeq++}` : `toolu_${callSeq++}`,
      name: r.pick(['read', 'write', 'ls']),
      input: object(r),
    }));
    if (gemini && calls[0]) Object.assign(calls[0], { signature: `sig${r.int(0, 9)}`, signatureFamily: 'gemini' });
    const thinking: ContentBlock[] = r.chance(0.3)
      ? [
          r.chance(0.5)
            ? { type: 'thinking', text: text(r), signature: 'g', family: 'gemini' }
            : { type: 'thinking', text: text(r), signature: 'a', family: 'anthropic' },
        ]
      : [];
    const texts = r.many(calls.length ? 0 : 1, 2, () => textBlock(r));
    messages.push({
      role: 'assistant',
      content: [...thinking, ...(r.chance(0.5) ? [...texts, ...calls] : [...calls, ...texts])],
    });
    if (r.chance(0.2)) messages.push({ role: 'system', content: r.many(1, 2, () => textBlock(r)) });
    const results: ToolResultBlock[] = calls.map((c) => ({
      type: 'tool_result',
      toolCallId: c.id,
      name: c.name,
      content: r.many(0, 2, () => (r.chance(0.8) ? textBlock(r) : { type: 'image' as const, source: PNG })),
      ...(r.chance(0.3) ? { isError: true } : {}),
    }));
    const shuffled = results.sort(() => (r.chance(0.5) ? 1 : -1));
    const rest = r.many(results.length ? 0 : 1, 2, () => (r.chance(0.7) ? textBlock(r) : media(r)));
    messages.push({ role: 'user', content: r.chance(0.5) ? [...shuffled, ...rest] : [...rest, ...shuffled] });
  }
  const req: CanonicalRequest = {
    model: r.pick(['gemini-3-pro-preview', 'gemini-2.5-flash']),
    system: r.many(0, 3, () => textBlock(r)),
    messages,
    tools,
    stream: r.chance(0.5),
    notes: [],
  };
  if (r.chance(0.6))
    req.toolChoice = r.pick([
      { type: 'none' },
      { type: 'auto', disableParallel: true },
      { type: 'any' },
      { type: 'tool', name: tools[0]?.name ?? 'x' },
    ]);
  if (r.chance(0.5)) req.maxOutputTokens = r.int(1, 100_000);
  if (r.chance(0.5)) req.temperature = r.int(0, 200) / 100;
  if (r.chance(0.5)) req.topP = r.int(1, 100) / 100;
  if (r.chance(0.3)) req.topK = r.int(1, 100);
  if (r.chance(0.3)) req.seed = r.int(0, 1e9);
  if (r.chance(0.3)) req.presencePenalty = r.int(-200, 200) / 100;
  if (r.chance(0.3)) req.frequencyPenalty = r.int(-200, 200) / 100;
  if (r.chance(0.3)) req.stopSequences = r.many(1, 7, () => text(r));
  if (r.chance(0.2)) req.user = 'u';
  if (r.chance(0.4))
    req.thinking = r.pick([
      { type: 'enabled', budgetTokens: r.int(1, 30000) },
      { type: 'disabled' },
      { type: 'adaptive' },
    ]);
  if (r.chance(0.4)) req.reasoningEffort = r.pick(['minimal', 'low', 'medium', 'high'] as const);
  if (r.chance(0.3))
    req.responseFormat = r.pick([
      { type: 'text' },
      { type: 'json_object' },
      { type: 'json_schema', name: 'out', schema: schema(r), strict: true },
    ]);
  return req;
}

function strip<T extends object>(b: T): T {
  const {
    cacheControl: _c,
    detail: _d,
    title: _t,
    ...rest
  } = b as T & { cacheControl?: unknown; detail?: unknown; title?: unknown };
  return rest as T;
}

const BUDGET = { minimal: 512, low: 1024, medium: 8192, high: 24576 };

/** The documented normalisations of toRequest → decodeRequest (see to-request.ts and decode.ts). */
function expectedRequest(x: CanonicalRequest): CanonicalRequest {
  type Turn = { role: 'user' | 'assistant'; results: ToolResultBlock[]; media: ContentBlock[]; rest: ContentBlock[] };
  const names = new Map(
    x.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_call' ? [[b.id, b.name] as const] : []))),
  );
  const turns: Turn[] = [];
  for (const m of x.messages) {
    const t: Turn = { role: m.role === 'assistant' ? 'assistant' : 'user', results: [], media: [], rest: [] };
    for (const b of m.content) {
      if (m.role === 'system')
        t.rest.push({ type: 'text', text: `<system-reminder>\n${(b as TextBlock).text}\n</system-reminder>` });
      else if (b.type === 'thinking') {
        if (b.family === 'gemini') t.rest.push(b);
      } else if (b.type === 'tool_result') {
        const body = b.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n\n');
        t.results.push({
          type: 'tool_result',
          toolCallId: b.toolCallId,
          name: names.get(b.toolCallId)!,
          content: body ? [{ type: 'text', text: body }] : [],
          ...(b.isError ? { isError: true } : {}),
        });
        t.media.push(...b.content.filter((c) => c.type !== 'text'));
      } else t.rest.push(strip(b));
    }
    const last = turns.at(-1);
    if (last?.role === t.role)
      (['results', 'media', 'rest'] as const).forEach((k) => last[k].push(...(t[k] as never[])));
    else turns.push(t);
  }
  const order = turns.flatMap((t) => t.rest.flatMap((b) => (b.type === 'tool_call' ? [b.id] : [])));
  const ids = new Map<string, string>();
  const messages = turns.map((t, i): CanonicalMessage => {
    t.results.sort((a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId));
    const content = [...t.results, ...t.media, ...t.rest];
    const calls = content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
    const fromGemini = calls.some((c) => c.signatureFamily === 'gemini');
    calls.forEach((c, k) => {
      if (!fromGemini) ids.set(c.id, `${c.name}_${i}_${content.indexOf(c)}`);
      if (k === 0 && !c.signature) Object.assign(c, { signature: SKIP, signatureFamily: 'gemini' });
    });
    return { role: t.role, content };
  });
  for (const m of messages)
    m.content = m.content.map((b) =>
      b.type === 'tool_call'
        ? { ...b, id: ids.get(b.id) ?? b.id }
        : b.type === 'tool_result'
          ? { ...b, toolCallId: ids.get(b.toolCallId) ?? b.toolCallId }
          : b,
    );
  const out: CanonicalRequest = {
    ...x,
    model: x.model,
    system: x.system.map(strip),
    messages,
    tools: x.tools.map(({ strict: _s, ...t }) => t),
  };
  delete out.user;
  if (x.stopSequences) out.stopSequences = x.stopSequences.slice(0, 5);
  const c = x.toolChoice;
  if (!x.tools.length || !c) delete out.toolChoice;
  else out.toolChoice = c.type === 'tool' || c.type === 'none' ? c : { type: c.type };
  if (x.responseFormat?.type === 'json_schema')
    out.responseFormat = { type: 'json_schema', name: 'response', schema: x.responseFormat.schema };
  delete out.thinking;
  delete out.reasoningEffort;
  const t = x.thinking;
  const e = x.reasoningEffort;
  if (t?.type === 'enabled') out.thinking = t;
  else if (t?.type !== 'disabled') {
    if (t?.type === 'adaptive') out.thinking = t;
    if (e && x.model.startsWith('gemini-2')) out.thinking = { type: 'enabled', budgetTokens: BUDGET[e] };
    else if (e) out.reasoningEffort = e;
  }
  return out;
}

test(`requests: decodeRequest(toRequest(x).body) equals x up to the documented normalisations (${RUNS} seeds)`, () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const x = genRequest(rng(seed));
    const up = toRequest(x);
    const model = /^\/v1beta\/models\/([^:]+):/.exec(up.path)?.[1] ?? '';
    const wire = JSON.parse(JSON.stringify(up.body)) as unknown;
    assert.deepEqual(
      decodeRequest(wire, model, { stream: up.path.includes(':streamGenerateContent') }),
      expectedRequest(x),
      `seed ${seed}`,
    );
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
  const outputTokens = n();
  return {
    inputTokens: n(),
    cacheReadTokens: n(),
    cacheWriteTokens: n(),
    cacheWrite1hTokens: n(),
    outputTokens,
    reasoningTokens: r.int(0, outputTokens),
    audioInputTokens: n(),
    imageInputTokens: n(),
  };
}
/** Gemini has no cache-write bucket: writes come back as plain input. */
const expectedUsage = (u: Usage): Usage => ({
  ...u,
  inputTokens: u.inputTokens + u.cacheWriteTokens + u.cacheWrite1hTokens,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
});
function expectedStop(s: StopReason, hadCalls: boolean): StopReason {
  if (s === 'max_tokens' || s === 'context_exceeded') return 'max_tokens';
  if (s === 'refusal') return 'refusal';
  return hadCalls ? 'tool_use' : 'end_turn';
}

/**
 * Adjacent text blocks join, as do adjacent thinking blocks (all of family gemini, keeping only
 * Gemini's signatures); another family's reasoning comes back bundled under Tollgate's mark on the
 * next call that has no Gemini signature (encode.ts).
 */
function merged(content: ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  let pending: CarriedBlock[] = [];
  for (const b of content) {
    if (b.type === 'thinking' && b.family !== 'gemini')
      pending.push({
        type: 'thinking',
        text: b.text,
        ...(b.signature ? { signature: b.signature } : {}),
        ...(b.family ? { family: b.family } : {}),
      });
    if (b.type === 'redacted_thinking') pending.push({ type: 'redacted_thinking', data: b.data });
    const last = out.at(-1);
    if (b.type === 'text' && last?.type === 'text') last.text += b.text;
    else if (b.type === 'thinking') {
      const sig = b.family === 'gemini' ? b.signature : undefined;
      if (last?.type === 'thinking') {
        last.text += b.text;
        if (sig) last.signature = sig;
      } else out.push({ type: 'thinking', text: b.text, ...(sig ? { signature: sig } : {}), family: 'gemini' });
    } else if (b.type === 'tool_call' && b.signatureFamily === 'gemini') out.push(b);
    else if (b.type === 'tool_call') {
      out.push({
        type: 'tool_call',
        id: b.id,
        name: b.name,
        input: b.input,
        ...(pending.length > 0
          ? { signature: mark({ kind: 'bundle', blocks: pending }), signatureFamily: 'gemini' as const }
          : {}),
      });
      pending = [];
    } else if (b.type !== 'redacted_thinking') out.push({ ...b });
  }
  return out;
}

test(`responses: fromResponse(encodeResponse(x)) equals x up to merges and usage buckets (${RUNS} seeds)`, () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const r = rng(seed);
    const content = r.many(0, 6, (): ContentBlock =>
      r.pick([
        () => ({ type: 'text' as const, text: text(r) }),
        () => ({
          type: 'thinking' as const,
          text: text(r),
          signature: 's',
          family: r.pick(['gemini', 'anthropic'] as const),
        }),
        () => ({ type: 'thinking' as const, text: text(r), family: 'openai' as const }),
        () => ({ type: 'redacted_thinking' as const, data: 'r' }),
        () => ({
          type: 'tool_call' as const,
          id: `toolu_${r.int(0, 999)}`,
          name: 'f',
          input: object(r),
          ...(r.chance(0.5) ? { signature: 'cs', signatureFamily: r.pick(['gemini', 'anthropic'] as const) } : {}),
        }),
        () => ({ type: 'image' as const, source: PNG }),
      ])(),
    );
    const x: CanonicalResponse = {
      id: 'up',
      model: 'upstream',
      content,
      stopReason: r.pick(STOPS),
      usage: genUsage(r),
    };
    const back = fromResponse(JSON.parse(JSON.stringify(encodeResponse(structuredClone(x), ctx))));
    const want = merged(structuredClone(content));
    assert.deepEqual(
      back,
      {
        id: 'req_42',
        model: 'client-alias',
        content: want,
        stopReason: expectedStop(
          x.stopReason,
          want.some((b) => b.type === 'tool_call'),
        ),
        usage: expectedUsage(x.usage),
      },
      `seed ${seed}`,
    );
  }
});

function genStream(r: R): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', id: 'msg_s', model: 'upstream', usage: genUsage(r) }];
  r.many(0, 6, () => r.pick(['text', 'thinking', 'tool'] as const)).forEach((kind, index) => {
    if (kind === 'tool') {
      const args = r.chance(0.2) ? '' : JSON.stringify(object(r));
      const cuts = [...new Set(r.many(0, 3, () => r.int(1, Math.max(1, args.length - 1))))].sort((a, b) => a - b);
      events.push({
        type: 'block_start',
        index,
        block: r.chance(0.5)
          ? { type: 'tool_call', id: `toolu_${index}`, name: 'f', signature: 'gs' }
          : { type: 'tool_call', id: `toolu_${index}`, name: 'f' },
      });
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
      if (kind === 'thinking' && r.chance(0.5)) events.push({ type: 'signature_delta', index, signature: 'sig' });
    }
    events.push({ type: 'block_stop', index });
  });
  events.push({ type: 'stop', stopReason: r.pick(STOPS), usage: genUsage(r) });
  return events;
}

/**
 * Adjacent blocks of the same text kind merge (chunks do not delimit blocks), thinking (of no
 * family here, so not Gemini's) comes back bundled on the next unsigned call, arguments arrive whole.
 */
function expectedStream(x: StreamEvent[], promptUsage: Usage): StreamEvent[] {
  // With at most one content chunk the finish chunk is the first one, and its prompt count is the start usage.
  const stop = x.at(-1);
  const chunks = x.filter(
    (e) =>
      e.type === 'text_delta' ||
      e.type === 'thinking_delta' ||
      (e.type === 'block_start' && e.block.type === 'tool_call'),
  ).length;
  const only = chunks <= 1 && stop?.type === 'stop';
  const start = only ? { ...expectedUsage(stop.usage), outputTokens: 0, reasoningTokens: 0 } : promptUsage;
  const out: StreamEvent[] = [{ type: 'start', id: 'req_42', model: 'client-alias', usage: start }];
  let index = -1;
  let open: string | undefined;
  let hadCalls = false;
  let args = '';
  let thought: { type: 'thinking'; text: string; signature?: string } | undefined;
  let pending: CarriedBlock[] = [];
  for (const e of x) {
    if (e.type === 'thinking_delta') thought!.text += e.text;
    if (e.type === 'signature_delta') thought!.signature = e.signature;
    if (e.type === 'block_stop' && thought) {
      pending.push(thought);
      thought = undefined;
    }
    if (e.type === 'block_start' && e.block.type === 'thinking') thought = { type: 'thinking', text: '' };
    if (e.type === 'block_start' && e.block.type === 'tool_call') {
      if (open !== undefined) out.push({ type: 'block_stop', index });
      open = undefined;
      hadCalls = true;
      args = '';
      const { signature } = e.block;
      const carried = signature ?? (pending.length > 0 ? mark({ kind: 'bundle', blocks: pending }) : undefined);
      if (!signature) pending = [];
      out.push({
        type: 'block_start',
        index: ++index,
        block: {
          type: 'tool_call',
          id: e.block.id,
          name: e.block.name,
          ...(carried ? { signature: carried, signatureFamily: 'gemini' as const } : {}),
        },
      });
    } else if (e.type === 'block_start' && e.block.type !== open) {
      if (open !== undefined) out.push({ type: 'block_stop', index });
      open = e.block.type;
      out.push({
        type: 'block_start',
        index: ++index,
        block: e.block.type === 'thinking' ? { type: 'thinking', family: 'gemini' } : { type: 'text' },
      });
    } else if (e.type === 'text_delta' || e.type === 'thinking_delta') out.push({ ...e, index });
    else if (e.type === 'tool_args_delta') args += e.json;
    else if (e.type === 'block_stop' && open === undefined) {
      out.push(
        { type: 'tool_args_delta', index, json: JSON.stringify(args ? JSON.parse(args) : {}) },
        { type: 'block_stop', index },
      );
    } else if (e.type === 'stop') {
      if (open !== undefined) out.push({ type: 'block_stop', index });
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
    for await (const s of encodeStream(from(x), ctx)) sse += s;
    const start = x[0]!;
    const promptUsage = start.type === 'start' ? start.usage : genUsage(rng(0));
    const back: StreamEvent[] = [];
    for await (const e of fromStream(readSse(from([sse])), promptUsage)) back.push(e);
    assert.deepEqual(back, expectedStream(x, promptUsage), `seed ${seed}`);
  }
});
