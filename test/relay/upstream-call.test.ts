/** What relay/upstream-call.ts hands the upstream client. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callUpstream } from '../../gateway/relay/upstream-call.js';
import { Lines } from '../../gateway/routing/lines.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import type { UpstreamCall } from '../../gateway/upstream/client.js';
import { WIRE } from '../../gateway/wire/index.js';
import { fakeAnswer, line } from '../helpers/relay-fakes.js';

test("the body goes to the upstream client as bytes of its own: not a string, nor a slice of Node's shared pool that a parked request would keep whole", async () => {
  const l = line('a');
  const lines = new Lines(
    { data: { version: 1, keys: [], lines: [l], groups: [], aliases: [] } },
    new MemorySecretStore(),
  );
  const sent: UpstreamCall[] = [];
  const upstream = {
    send: (call: UpstreamCall) => {
      sent.push(call);
      return Promise.resolve(fakeAnswer(200, '{}'));
    },
  };
  const text = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'é ✓ 👋' }] });
  await callUpstream(
    { lines, upstream },
    l,
    WIRE['openai-chat'].upstream,
    { path: '/chat/completions', headers: {}, body: text },
    false,
    new AbortController().signal,
  );
  const body = sent[0]!.body;
  assert.ok(Buffer.isBuffer(body), 'bytes, which undici sends as they are');
  assert.equal(body.toString('utf8'), text);
  assert.equal(body.byteLength, Buffer.byteLength(text));
  assert.equal(body.buffer.byteLength, body.byteLength, 'its own memory, not an 8 KB pool slab');
});
