/** The gemini pass-through: the request as it goes up, and the tap reading the answer stream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mark } from '../../../gateway/core/reasoning.js';
import { bind } from '../../../gateway/core/signatures.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { SKIP_SIGNATURE } from '../../../gateway/wire/gemini/types.js';
import { GeminiStreamTap, geminiPassthrough, geminiSignatures } from '../../../gateway/wire/gemini/passthrough.js';

const chunk = (parts: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  data: JSON.stringify({ candidates: [{ content: { role: 'model', parts } }], ...extra }),
});

describe('GeminiStreamTap', () => {
  test('only the last usage counts, and only once a chunk carried a finishReason', () => {
    const tap = new GeminiStreamTap();
    tap.onEvent(chunk([{ text: 'Hel' }], { usageMetadata: { promptTokenCount: 8 } }));
    assert.equal(tap.usage(), undefined, 'interim chunks carry prompt-only usage');
    tap.onEvent(chunk([{ functionCall: { name: 'f', args: { a: 1 } } }]));
    const last = {
      candidates: [{ content: { parts: [{ text: 'lo' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 5 },
    };
    tap.onEvent({ data: JSON.stringify(last) });
    assert.equal(tap.complete(), true);
    assert.deepEqual(tap.usage(), { ...emptyUsage(), inputTokens: 8, outputTokens: 5 });
    assert.equal(tap.produced(), 'Hel{"name":"f","args":{"a":1}}lo');
  });

  test('an error chunk is an in-band upstream error', () => {
    const tap = new GeminiStreamTap();
    tap.onEvent({ data: JSON.stringify({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }) });
    assert.equal(tap.error()?.code, 'upstream_stream_error');
  });

  test('a truncated chunk is refused', () => {
    assert.throws(() => new GeminiStreamTap().onEvent({ data: '{"candidates":[' }), SyntaxError);
  });
});

describe('geminiPassthrough', () => {
  test('puts the model in the path, SSE for a stream, and sends the body as it came', () => {
    const raw = '{"contents":[{"parts":[{"text":"hi"}]}]}';
    assert.deepEqual(geminiPassthrough(JSON.parse(raw), raw, false).request('gemini-2.5-flash'), {
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      headers: {},
      body: raw,
    });
    assert.equal(
      geminiPassthrough(JSON.parse(raw), raw, true).request('tuned/model 1').path,
      '/v1beta/models/tuned%2Fmodel%201:streamGenerateContent?alt=sse',
    );
  });

  test("another family's marked signatures and unsigned first calls get Gemini's placeholder, with a note; Gemini's own pass", () => {
    const marked = mark({
      kind: 'bundle',
      blocks: [{ type: 'thinking', text: 'hm', signature: 'EqX', family: 'anthropic' }],
    });
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'a', args: {} }, thoughtSignature: marked },
            { functionCall: { name: 'b', args: {} } },
          ],
        },
        {
          role: 'model',
          parts: [{ text: 'x', thought: true, thoughtSignature: marked }, { functionCall: { name: 'c', args: {} } }],
        },
        { role: 'model', parts: [{ functionCall: { name: 'd', args: {} }, thoughtSignature: 'CiOwn' }] },
      ],
    };
    const r = geminiPassthrough(body, JSON.stringify(body), false).request('gemini-3-pro-preview');
    const sent = JSON.parse(r.body);
    assert.deepEqual(sent.contents[1].parts, [
      { functionCall: { name: 'a', args: {} }, thoughtSignature: SKIP_SIGNATURE },
      { functionCall: { name: 'b', args: {} } },
    ]);
    assert.deepEqual(sent.contents[2].parts, [
      { text: 'x', thought: true },
      { functionCall: { name: 'c', args: {} }, thoughtSignature: SKIP_SIGNATURE },
    ]);
    assert.deepEqual(sent.contents[3], body.contents[3]);
    assert.match(r.notes?.[0] ?? '', /put on or in place of 3 thought signature/);
    const plain = { contents: [body.contents[0], body.contents[3]] };
    const raw = JSON.stringify(plain);
    assert.deepEqual(
      geminiPassthrough(plain, raw, false).request('m'),
      { path: '/v1beta/models/m:generateContent', headers: {}, body: raw },
      'nothing to change: the bytes as they came, no note',
    );
  });

  test('reads usage and what was produced from a whole answer', () => {
    const answer = {
      candidates: [{ content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1 },
    };
    assert.deepEqual(geminiPassthrough({}, '{}', false).readAnswer(answer), {
      usage: { ...emptyUsage(), inputTokens: 4, outputTokens: 1 },
      produced: 'ok',
    });
    assert.deepEqual(geminiPassthrough({}, '{}', false).readAnswer({ candidates: [] }), {
      usage: undefined,
      produced: '',
    });
  });
});

describe('thought signatures bound to lines (docs/protocols.md §6.6)', () => {
  const line = { id: 'line_a' };
  const turn = (signature: string) => ({
    contents: [
      { role: 'user', parts: [{ text: 'hi' }] },
      {
        role: 'model',
        parts: [
          { text: 't', thought: true, thoughtSignature: signature },
          { functionCall: { name: 'f', args: {} }, thoughtSignature: signature },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'ok' } } }] },
    ],
  });

  test("this line's signatures go up unbound in the client's own bytes", () => {
    const body = turn(bind('CiSig', 'line_a'));
    const raw = JSON.stringify(body, null, 2);
    const r = geminiPassthrough(body, raw, true).request('gemini-3-pro-preview', undefined, undefined, line);
    assert.equal(r.body, raw.replaceAll(bind('CiSig', 'line_a'), 'CiSig'));
    assert.equal(r.notes, undefined);
  });

  test("another line's: removed from the thought, the placeholder on the call, a note", () => {
    const body = turn(bind('CiSig', 'line_b'));
    const r = geminiPassthrough(body, JSON.stringify(body), false).request('m', undefined, undefined, line);
    assert.deepEqual(JSON.parse(r.body).contents[1].parts, [
      { text: 't', thought: true },
      { functionCall: { name: 'f', args: {} }, thoughtSignature: SKIP_SIGNATURE },
    ]);
    assert.match(r.notes?.join('\n') ?? '', /left out 2 thought signature\(s\).*made by another line/);
  });

  test('answers: every thoughtSignature bound; chunks without one pass as the same string', () => {
    const answer = { candidates: [{ content: { parts: [{ text: 'x', thoughtSignature: 'CiSig' }, { text: 'y' }] } }] };
    assert.equal(geminiSignatures.answer(answer, 'line_a'), true);
    assert.equal(answer.candidates[0]!.content.parts[0]!.thoughtSignature, bind('CiSig', 'line_a'));
    const signed = chunk([{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'CiCall' }]).data;
    assert.match(geminiSignatures.event(signed, 'line_a'), /"thoughtSignature":"tollgate\.l1\.line_a\.CiCall"/);
    const plain = chunk([{ text: 'thoughtSignature' }]).data;
    assert.equal(geminiSignatures.event(plain, 'line_a'), plain);
  });
});
