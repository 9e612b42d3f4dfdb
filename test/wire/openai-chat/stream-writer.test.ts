import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { writtenStream } from '../../../gateway/core/codec.js';
import { makeCodec } from '../../../gateway/wire/openai-chat/client-codec.js';
import { ChatStreamWriter, encodeStream } from '../../../gateway/wire/openai-chat/encode-stream.js';
import { afterStop, collect, from, namedStreams, pushed, richStream, sse } from '../../helpers/stream-events.js';

const ctx = { requestedModel: 'my "alias"', requestId: 'req_a/b c' };
/** The clock both encodings read: chunks stamp `created`, in seconds, from Date.now(). */
const now = 1_795_000_000_000;

async function generated(list: StreamEvent[], includeUsage: boolean): Promise<string[]> {
  const out: string[] = [];
  for await (const s of encodeStream(from(list), ctx, { includeUsage })) out.push(s);
  return out;
}

/**
 * What the chat encoder wrote for these streams when it was an async generator (one yield per chunk), byte for
 * byte: escapes, the role chunk, reasoning, both tool calls (the Gemini-signed one with its extra_content), the
 * finish, the usage chunk and `usage:null` with include_usage, the in-band errors.
 */
const expected = {
  richStreamUsage: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"plan"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"plain"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_\\"x\\"","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Zürich \\\\\\"old\\\\\\" town\\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"read","arguments":""},"extra_content":{"google":{"thought_signature":"CiSig"}}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[],"usage":{"prompt_tokens":25,"completion_tokens":9,"total_tokens":34,"prompt_tokens_details":{"cached_tokens":5,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":3}}}',
    '[DONE]',
  ),
  richStream: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"plan"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"plain"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_\\"x\\"","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Zürich \\\\\\"old\\\\\\" town\\"}"}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"read","arguments":""},"extra_content":{"google":{"thought_signature":"CiSig"}}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}',
    '[DONE]',
  ),
  failedStreamUsage: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"plan"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"plain"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_\\"x\\"","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"error":{"message":"Upstream unavailable (HTTP 503)","type":"server_error","param":null,"code":"upstream_unavailable"}}',
  ),
  failedStream: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"plan"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"plain"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_\\"x\\"","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"logprobs":null,"finish_reason":null}]}',
    '{"error":{"message":"Upstream unavailable (HTTP 503)","type":"server_error","param":null,"code":"upstream_unavailable"}}',
  ),
  cutStreamUsage: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"plan"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"plain"},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_\\"x\\"","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"error":{"message":"Upstream error: the upstream closed the stream before it was complete.","type":"server_error","param":null,"code":"upstream_stream_incomplete"}}',
  ),
  cutStream: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"reasoning_content":"plan"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\\\n\\r\\n\u2028\u2029\\u0007 – ✓ 😀"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"content":"plain"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_\\"x\\"","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"logprobs":null,"finish_reason":null}]}',
    '{"error":{"message":"Upstream error: the upstream closed the stream before it was complete.","type":"server_error","param":null,"code":"upstream_stream_incomplete"}}',
  ),
  bareStopUsage: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}],"usage":null}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}',
    '[DONE]',
  ),
  bareStop: sse(
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-a/b c","object":"chat.completion.chunk","created":1795000000,"model":"my \\"alias\\"","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}',
    '[DONE]',
  ),
  noneUsage: sse(
    '{"error":{"message":"Upstream error: the upstream closed the stream before it was complete.","type":"server_error","param":null,"code":"upstream_stream_incomplete"}}',
  ),
  none: sse(
    '{"error":{"message":"Upstream error: the upstream closed the stream before it was complete.","type":"server_error","param":null,"code":"upstream_stream_incomplete"}}',
  ),
};

test('the chat stream writer writes the bytes the generator encoder wrote, with and without include_usage', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now });
  for (const [name, events] of namedStreams) {
    for (const includeUsage of [false, true]) {
      const key = (includeUsage ? `${name}Usage` : name) as keyof typeof expected;
      const text = pushed(new ChatStreamWriter(ctx, { includeUsage }), events).join('');
      assert.equal(text, expected[key], key);
      assert.equal(pushed(makeCodec(includeUsage).streamWriter(ctx) as ChatStreamWriter, events).join(''), text);
    }
  }
  // Events after the stop are not read.
  assert.equal(pushed(new ChatStreamWriter(ctx, { includeUsage: true }), afterStop).join(''), expected.richStreamUsage);
});

test("the chat stream writer gives encodeStream's chunks, one for each event that writes", async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now });
  for (const [, events] of [...namedStreams, ['afterStop', afterStop] as [string, StreamEvent[]]]) {
    for (const includeUsage of [false, true]) {
      const chunks = pushed(new ChatStreamWriter(ctx, { includeUsage }), events);
      assert.deepEqual(chunks, await generated(events, includeUsage));
      assert.deepEqual(chunks, await collect(writtenStream(makeCodec(includeUsage).streamWriter(ctx), from(events))));
    }
  }
});

test("a start that names a chatcmpl- id names every chunk, the usage chunk's too", (t) => {
  t.mock.timers.enable({ apis: ['Date'], now });
  const named: StreamEvent[] = [{ ...richStream[0]!, id: 'chatcmpl-up"1"' } as StreamEvent, ...richStream.slice(1)];
  const text = pushed(new ChatStreamWriter(ctx, { includeUsage: true }), named).join('');
  assert.equal(text, expected.richStreamUsage.replaceAll('"id":"chatcmpl-a/b c"', '"id":"chatcmpl-up\\"1\\""'));
  assert.notEqual(text, expected.richStreamUsage);
});
