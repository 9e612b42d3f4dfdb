import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSse, readSse, SseReader, type SseEvent } from '../../gateway/core/sse.js';

const openaiStream =
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n' +
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"héllo 你好 🙂"},"finish_reason":null}]}\n\n' +
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}\n\n' +
  'data: [DONE]\n\n';

const openaiEvents: SseEvent[] = [
  {
    data: '{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
  },
  {
    data: '{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"héllo 你好 🙂"},"finish_reason":null}]}',
  },
  {
    data: '{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  },
  {
    data: '{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}',
  },
  { data: '[DONE]' },
];

const anthropicStream =
  ': keep-alive\r\n' +
  'event: message_start\r\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":1}}}\r\n\r\n' +
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo 你好 🙂"}}\r\n\r\n' +
  ': ping 你好\r\n' +
  'event: note\r\ndata: first line héllo\r\ndata:second line 🙂\r\ndata: \r\n\r\n' +
  'event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n';

const anthropicEvents: SseEvent[] = [
  {
    event: 'message_start',
    data: '{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":1}}}',
  },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo 你好 🙂"}}',
  },
  { event: 'note', data: 'first line héllo\nsecond line 🙂\n' },
  { event: 'message_stop', data: '{"type":"message_stop"}' },
];

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    yield bytes.slice(from, to);
    from = to;
  }
}

async function parse(body: AsyncIterable<Uint8Array | string>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of readSse(body)) out.push(e);
  return out;
}

for (const [name, text, expected] of [
  ['OpenAI', openaiStream, openaiEvents],
  ['Anthropic-style', anthropicStream, anthropicEvents],
] as const) {
  describe(`readSse: ${name} stream`, () => {
    const bytes = new TextEncoder().encode(text);

    test('parses the stream in one chunk', async () => {
      assert.deepEqual(await parse(chunked(bytes, [])), expected);
    });

    test('gives the same events when split at every byte offset', async () => {
      assert.ok(bytes.length > text.length, 'the stream has multi-byte characters');
      for (let cut = 1; cut < bytes.length; cut++)
        assert.deepEqual(await parse(chunked(bytes, [cut])), expected, `split at byte ${cut}`);
    });

    test('gives the same events one byte per chunk', async () => {
      const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
      assert.deepEqual(await parse(chunked(bytes, cuts)), expected);
    });
  });
}

describe('readSse', () => {
  test('yields each event as soon as its blank line arrives', async () => {
    let pulled = 0;
    async function* body(): AsyncGenerator<string> {
      pulled++;
      yield 'data: one\n\ndata: tw';
      pulled++;
      yield 'o\n\n';
    }
    const it = readSse(body());
    assert.deepEqual((await it.next()).value, { data: 'one' });
    assert.equal(pulled, 1);
    assert.deepEqual((await it.next()).value, { data: 'two' });
    assert.equal((await it.next()).done, true);
  });

  test('drops a final event that has no blank line after it', async () => {
    assert.deepEqual(await parse(chunked(new TextEncoder().encode('data: whole\n\ndata: cut'), [])), [
      { data: 'whole' },
    ]);
  });
});

describe('SseReader', () => {
  test("gives each chunk's completed events at once, a character split across chunks whole, and the tail at the end", () => {
    const reader = new SseReader();
    const bytes = new TextEncoder().encode('data: é\n\ndata: b\n\ndata: c');
    // 'é' is two bytes: the first chunk ends inside it.
    assert.deepEqual(reader.feed(bytes.subarray(0, 7)), []);
    assert.deepEqual(reader.feed(bytes.subarray(7)), [{ data: 'é' }, { data: 'b' }]);
    assert.deepEqual(reader.feed('\n'), []);
    assert.deepEqual(reader.end(), []);
    const ended = new SseReader();
    ended.feed('event: e\ndata: x\n');
    assert.deepEqual(ended.feed('\n'), [{ event: 'e', data: 'x' }]);
  });

  test('refuses an event past its bound', () => {
    const reader = new SseReader(16);
    reader.feed('data: 0123456');
    assert.throws(
      () => reader.feed('789abcdef'),
      (e: unknown) => (e as { code?: string }).code === 'upstream_malformed',
    );
  });
});

describe('formatSse', () => {
  test('writes SSE framing', () => {
    assert.equal(formatSse({ data: '[DONE]' }), 'data: [DONE]\n\n');
    assert.equal(formatSse({ event: 'ping', data: 'a\nb' }), 'event: ping\ndata: a\ndata: b\n\n');
  });

  test('round-trips through readSse', async () => {
    const events: SseEvent[] = [
      ...openaiEvents,
      ...anthropicEvents,
      { data: '' },
      { data: ' leading space' },
      { event: 'e', data: '\n\nx\n' },
    ];
    const bytes = new TextEncoder().encode(events.map(formatSse).join(''));
    assert.deepEqual(await parse(chunked(bytes, [7, 100, 101, 102])), events);
  });

  test('keeps every line of data holding a carriage return (SSE reads CR, LF and CRLF all as LF)', async () => {
    const events: SseEvent[] = [{ data: 'a\rb' }, { data: 'c\r\nd' }];
    const back = await parse(chunked(new TextEncoder().encode(events.map(formatSse).join('')), []));
    assert.deepEqual(back, [{ data: 'a\nb' }, { data: 'c\nd' }]);
  });
});

describe('bounded events', () => {
  test('an event that never ends is refused once it passes the bound, not held whole', async () => {
    async function* endless(): AsyncGenerator<string> {
      yield 'data: ';
      for (;;) yield 'x'.repeat(1024);
    }
    await assert.rejects(
      (async () => {
        for await (const ev of readSse(endless(), 64 * 1024)) void ev;
      })(),
      (e: unknown) =>
        (e as { code?: string }).code === 'upstream_malformed' && /larger than/.test((e as Error).message),
    );
  });

  test('many events, each within the bound, pass whatever their total', async () => {
    async function* many(): AsyncGenerator<string> {
      for (let i = 0; i < 200; i++) yield `data: ${'x'.repeat(1000)}\n\n: ping\n`;
    }
    let n = 0;
    for await (const ev of readSse(many(), 4 * 1024)) n += ev.data.length === 1000 ? 1 : 0;
    assert.equal(n, 200);
  });
});
