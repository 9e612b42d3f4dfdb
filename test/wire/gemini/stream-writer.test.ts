import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { writtenStream } from '../../../gateway/core/codec.js';
import { makeCodec } from '../../../gateway/wire/gemini/client-codec.js';
import {
  encodeStream,
  encodeStreamAsJsonArray,
  GeminiStreamWriter,
} from '../../../gateway/wire/gemini/encode-stream.js';
import { afterStop, collect, from, namedStreams, pushed, richStream, sse } from '../../helpers/stream-events.js';

const ctx = { requestedModel: 'my "alias"', requestId: 'req_a/b c' };

/**
 * What the Gemini encoder wrote for these streams when it was an async generator, byte for byte, with `?alt=sse`
 * and as one JSON array: escapes, thought parts, Gemini's own thought signature on an empty thought part, another
 * family's reasoning bundled into the next call's signature, whole calls, the finish reason and usage on the last
 * chunk with content, the error chunks.
 */
const expected = {
  richStream: sse(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"sig-g"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"plain"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_\\"x\\"","name":"weather","args":{"city":"Zürich \\"old\\" town"}},"thoughtSignature":"tollgate.r1.eyJraW5kIjoiYnVuZGxlIiwiYmxvY2tzIjpbeyJ0eXBlIjoidGhpbmtpbmciLCJ0ZXh0Ijoic2F5IFwiaGlcIlxcblxyXG7igKjigKlcdTAwMDcg4oCTIOKckyDwn5iAIiwic2lnbmF0dXJlIjoic2lnLWEiLCJmYW1pbHkiOiJhbnRocm9waWMifSx7InR5cGUiOiJyZWRhY3RlZF90aGlua2luZyIsImRhdGEiOiJvcGFxdWUiLCJmYW1pbHkiOiJhbnRocm9waWMifV19"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_2","name":"read","args":{}},"thoughtSignature":"CiSig"}]},"index":0,"finishReason":"STOP"}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c","usageMetadata":{"promptTokenCount":25,"candidatesTokenCount":6,"totalTokenCount":34,"cachedContentTokenCount":5,"thoughtsTokenCount":3}}',
  ),
  richStreamArray:
    '[{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"sig-g"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"plain"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_\\"x\\"","name":"weather","args":{"city":"Zürich \\"old\\" town"}},"thoughtSignature":"tollgate.r1.eyJraW5kIjoiYnVuZGxlIiwiYmxvY2tzIjpbeyJ0eXBlIjoidGhpbmtpbmciLCJ0ZXh0Ijoic2F5IFwiaGlcIlxcblxyXG7igKjigKlcdTAwMDcg4oCTIOKckyDwn5iAIiwic2lnbmF0dXJlIjoic2lnLWEiLCJmYW1pbHkiOiJhbnRocm9waWMifSx7InR5cGUiOiJyZWRhY3RlZF90aGlua2luZyIsImRhdGEiOiJvcGFxdWUiLCJmYW1pbHkiOiJhbnRocm9waWMifV19"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_2","name":"read","args":{}},"thoughtSignature":"CiSig"}]},"index":0,"finishReason":"STOP"}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c","usageMetadata":{"promptTokenCount":25,"candidatesTokenCount":6,"totalTokenCount":34,"cachedContentTokenCount":5,"thoughtsTokenCount":3}}]',
  failedStream: sse(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"sig-g"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"plain"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"error":{"code":503,"message":"Upstream unavailable (HTTP 503)","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_unavailable","domain":"tollgate"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}',
  ),
  failedStreamArray:
    '[{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"sig-g"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"plain"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"error":{"code":503,"message":"Upstream unavailable (HTTP 503)","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_unavailable","domain":"tollgate"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}]',
  cutStream: sse(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"sig-g"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"plain"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"}',
    '{"error":{"code":502,"message":"Upstream error: the upstream closed the stream before it was complete.","status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_stream_incomplete","domain":"tollgate"}]}}',
  ),
  cutStreamArray:
    '[{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"sig-g"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"candidates":[{"content":{"role":"model","parts":[{"text":"plain"}]},"index":0}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c"},\r\n{"error":{"code":502,"message":"Upstream error: the upstream closed the stream before it was complete.","status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_stream_incomplete","domain":"tollgate"}]}}]',
  bareStop: sse(
    '{"candidates":[{"content":{"role":"model","parts":[]},"index":0,"finishReason":"MAX_TOKENS"}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c","usageMetadata":{"promptTokenCount":0,"candidatesTokenCount":0,"totalTokenCount":0}}',
  ),
  bareStopArray:
    '[{"candidates":[{"content":{"role":"model","parts":[]},"index":0,"finishReason":"MAX_TOKENS"}],"modelVersion":"my \\"alias\\"","responseId":"req_a/b c","usageMetadata":{"promptTokenCount":0,"candidatesTokenCount":0,"totalTokenCount":0}}]',
  none: sse(
    '{"error":{"code":502,"message":"Upstream error: the upstream closed the stream before it was complete.","status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_stream_incomplete","domain":"tollgate"}]}}',
  ),
  noneArray:
    '[{"error":{"code":502,"message":"Upstream error: the upstream closed the stream before it was complete.","status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_stream_incomplete","domain":"tollgate"}]}}]',
};

test('the Gemini stream writer writes the bytes the generator encoder wrote, as SSE and as one JSON array', () => {
  for (const [name, events] of namedStreams) {
    const sseKey = name as keyof typeof expected;
    const arrayKey = `${name}Array` as keyof typeof expected;
    assert.equal(pushed(new GeminiStreamWriter(ctx, true), events).join(''), expected[sseKey], sseKey);
    assert.equal(pushed(new GeminiStreamWriter(ctx, false), events).join(''), expected[arrayKey], arrayKey);
    const viaCodec = (sse: boolean): string =>
      pushed(makeCodec('m', { stream: true, sse }).streamWriter(ctx) as GeminiStreamWriter, events).join('');
    assert.equal(viaCodec(true), expected[sseKey]);
    assert.equal(viaCodec(false), expected[arrayKey]);
  }
  // Events after the stop are not read.
  assert.equal(pushed(new GeminiStreamWriter(ctx, true), afterStop).join(''), expected.richStream);
  assert.equal(pushed(new GeminiStreamWriter(ctx, false), afterStop).join(''), expected.richStreamArray);
});

test("the Gemini stream writer gives encodeStream's chunks, one for each event that writes", async () => {
  for (const [, events] of [...namedStreams, ['afterStop', afterStop] as [string, StreamEvent[]]]) {
    assert.deepEqual(pushed(new GeminiStreamWriter(ctx, true), events), await collect(encodeStream(from(events), ctx)));
    assert.deepEqual(
      pushed(new GeminiStreamWriter(ctx, false), events),
      await collect(encodeStreamAsJsonArray(from(events), ctx)),
    );
    assert.deepEqual(
      pushed(new GeminiStreamWriter(ctx, false), events),
      await collect(writtenStream(makeCodec('m', { sse: false }).streamWriter(ctx), from(events))),
    );
  }
});

test('a chunk is held back until the next one is known: an event that only ends a block writes the one before it', () => {
  const w = new GeminiStreamWriter(ctx, true);
  const text = richStream.findIndex((e) => e.type === 'text_delta');
  const written = richStream.map((ev) => w.push(ev));
  // The first thought text goes out only when the next chunk comes.
  assert.equal(written[2], undefined);
  assert.ok(written.slice(0, text).some((s) => s !== undefined));
  assert.equal(written.join(''), expected.richStream);
});
