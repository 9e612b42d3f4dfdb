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

/** Lines over `l` with a keychain holding `secrets`, and an upstream client that keeps what it was sent. */
function setup(l: ReturnType<typeof line>, secrets: Record<string, string> = {}) {
  const lines = new Lines(
    { data: { version: 1, keys: [], lines: [l], groups: [], aliases: [] } },
    new MemorySecretStore(secrets),
  );
  const sent: UpstreamCall[] = [];
  const upstream = {
    send: (call: UpstreamCall) => {
      sent.push(call);
      return Promise.resolve(fakeAnswer(200, '{}'));
    },
  };
  const call = () =>
    callUpstream(
      { lines, upstream },
      l,
      WIRE['openai-chat'].upstream,
      { path: '/chat/completions', headers: {}, body: '{}' },
      false,
      new AbortController().signal,
    );
  return { lines, sent, call };
}

test("a keychain line's key is asked of the keychain once, then given at once (no promise), and sent either way", async () => {
  const l = line('kc', { apiKeySource: 'keychain' });
  const { lines, sent, call } = setup(l, { kc: 'sk-upstream-secret' });
  const first = lines.credentialFor(l);
  assert.ok(first instanceof Promise, 'the first read asks the keychain');
  assert.equal(await first, 'sk-upstream-secret');
  assert.equal(lines.credentialFor(l), 'sk-upstream-secret', 'then it is at hand');
  await call();
  await call();
  assert.deepEqual(
    sent.map((c) => c.headers.authorization),
    ['Bearer sk-upstream-secret', 'Bearer sk-upstream-secret'],
  );
});

test('a line whose key cannot be read rejects the call with the reason, as before: nothing thrown out of callUpstream, nothing sent', async () => {
  for (const [over, code] of [
    [{ apiKeySource: 'env', apiKeyEnv: 'PATH' }, 'line_credential_refused'],
    [{ apiKeySource: 'env', apiKeyEnv: 'TOLLGATE_TEST_UNSET_API_KEY' }, 'line_credential_missing'],
    [{ apiKeySource: 'keychain' }, 'line_credential_missing'],
  ] as const) {
    const { sent, call } = setup(line('x', over));
    let pending: Promise<unknown> | undefined;
    assert.doesNotThrow(() => {
      pending = call();
    });
    await assert.rejects(pending!, (err: Error & { code?: string }) => err.code === code);
    assert.equal(sent.length, 0);
  }
});
