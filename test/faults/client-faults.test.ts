/**
 * Faults on the client's side and bursts of upstream 5xx (docs/reliability.md): a client that
 * stops reading a stream that never ends (the gateway must stop reading the upstream too, so
 * memory stays bounded), clients that hang up at random points, and a burst of 5xx answers that
 * the gateway rides out by failing over, then recovers from. Every request ends with one ledger
 * row, nothing held, and the ledger invariant intact.
 */
import assert from 'node:assert/strict';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { askWith, PROTOCOLS, type Protocol } from '../helpers/clients.js';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import { rng } from '../helpers/seeded.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertSettled, faultyGateway, KEY_ENV, MODEL_OF, TRANSLATED_TO } from './rig.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});

after(async () => {
  await mock.close();
});

/** A streaming request of `protocol` for `model`, written by hand so the test controls the reading. */
function rawStream(
  gw: TestGateway,
  protocol: Protocol,
  model: string,
  key: string,
): { path: string; body: string; headers: Record<string, string> } {
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${key}`,
    'x-api-key': key,
    'anthropic-version': '2023-06-01',
  };
  const text = 'hello';
  switch (protocol) {
    case 'openai-chat':
      return {
        path: '/v1/chat/completions',
        headers,
        body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: text }] }),
      };
    case 'anthropic':
      return {
        path: '/v1/messages',
        headers,
        body: JSON.stringify({ model, stream: true, max_tokens: 1024, messages: [{ role: 'user', content: text }] }),
      };
    case 'openai-responses':
      return {
        path: '/v1/responses',
        headers,
        body: JSON.stringify({ model, stream: true, store: false, input: text }),
      };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
        headers,
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
      };
  }
}

describe('a client that stops reading an endless stream', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await faultyGateway(mock, 'endless,words=20');
  });
  after(async () => {
    await gw.close();
  });

  for (const client of PROTOCOLS) {
    for (const upstream of [client, TRANSLATED_TO[client]] as Protocol[]) {
      test(`${client} → ${upstream}: the gateway stops reading the upstream, then ends both sides when the client leaves`, async (t) => {
        const keyName = `slow.${client}.${upstream}`;
        const key = await gw.admin.key(keyName);
        const spec = rawStream(gw, client, MODEL_OF[upstream], key);
        const url = new URL(spec.path, gw.url);
        const start = mock.stats.endlessBytes;
        let req: ClientRequest | undefined;
        const res = await new Promise<IncomingMessage>((resolve, reject) => {
          req = request(url, { method: 'POST', headers: spec.headers }, resolve);
          req.on('error', reject);
          req.end(spec.body);
        });
        assert.equal(res.statusCode, 200);
        try {
          // Read nothing: the socket buffers fill, the gateway waits for them to drain, and so
          // its reads from the upstream stop and the mock's writes back up as well.
          res.pause();
          let sent = -1;
          for (let stable = 0; stable < 2;) {
            await sleep(150);
            const now = mock.stats.endlessBytes - start;
            // Bounded: what the kernel's and the streams' buffers hold, not what the upstream could send.
            assert.ok(now < 64 * 1024 * 1024, `the upstream kept sending: ${now} bytes`);
            stable = now === sent && mock.stats.waitingForDrain > 0 ? stable + 1 : 0;
            sent = now;
          }
          t.diagnostic(`the upstream stopped after ${sent} bytes`);
        } finally {
          req!.destroy();
        }
        await waitFor(
          () => mock.stats.waitingForDrain === 0 && mock.inFlight() === 0,
          'the upstream request to be aborted',
        );
        await waitFor(async () => (await gw.admin.logs({ key: keyName })).length === 1, 'the ledger row');
        const [row] = await gw.admin.logs({ key: keyName });
        assert.equal(row!.status, 499);
        assert.ok(
          row!.usage.outputTokens > 0 && row!.costMicro > 0,
          `what was streamed is billed: ${JSON.stringify(row!.usage)}`,
        );
        await assertSettled(gw, keyName);
      });
    }
  }
});

describe('clients that hang up at random points', () => {
  let gw: TestGateway;
  // A fixed seed: a failure names the abort point, and the same run reproduces it.
  const r = rng(Number(process.env.TOLLGATE_SEED ?? 20261124));
  before(async () => {
    gw = await faultyGateway(mock, 'words=40,chunk-delay=3,delay=20');
  });
  after(async () => {
    await gw.close();
  });

  for (const client of PROTOCOLS) {
    for (const upstream of [client, TRANSLATED_TO[client]] as Protocol[]) {
      for (const stream of [true, false]) {
        test(`${client} → ${upstream}${stream ? ', streaming' : ''}`, async () => {
          const rounds = 4;
          const names: string[] = [];
          await Promise.all(
            Array.from({ length: rounds }, async (_, i) => {
              const keyName = `abort.${client}.${upstream}.${stream}.${i}`;
              names.push(keyName);
              const key = await gw.admin.key(keyName);
              // Counted from when the upstream got the request: while it waits (20 ms), while it
              // streams (~130 ms), or after it finished.
              const abortAfterMs = r.int(0, 200);
              const marker = `round ${keyName}`;
              const ac = new AbortController();
              const arrived = waitFor(
                () => mock.requests.some((r) => JSON.stringify(r.body).includes(marker)),
                `${keyName} to reach the upstream`,
              )
                .then(() => sleep(abortAfterMs))
                .then(() => ac.abort());
              const answered = await askWith(client, gw.url, key, {
                model: MODEL_OF[upstream],
                stream,
                prompt: marker,
                signal: ac.signal,
              }).then(
                () => true,
                () => false,
              );
              // The OpenAI SDK ends a stream quietly when it is aborted: only an answer that came
              // before the abort is known to be whole.
              const whole = answered && !ac.signal.aborted;
              await arrived;
              await waitFor(
                async () => (await gw.admin.logs({ key: keyName })).length === 1,
                `${keyName}: the ledger row (abort at ${abortAfterMs} ms)`,
              );
              const [row] = await gw.admin.logs({ key: keyName });
              if (whole) assert.equal(row!.status, 200, `${keyName} at ${abortAfterMs} ms`);
              else
                assert.ok(
                  row!.status === 499 || row!.status === 200,
                  `${keyName} at ${abortAfterMs} ms: ${row!.status} ${row!.errorCode}`,
                );
              // The prompt reached the upstream in every case, so every row bills something.
              assert.ok(row!.costMicro > 0, `${keyName} at ${abortAfterMs} ms: nothing billed`);
            }),
          );
          await waitFor(() => mock.inFlight() === 0, 'every upstream request to end');
          await assertSettled(gw, names.join(', '));
        });
      }
    }
  }
});

describe('a burst of upstream 5xx', () => {
  let gw: TestGateway;
  const model = MODEL_OF['openai-chat'];
  before(async () => {
    gw = await faultyGateway(mock, 'words=5');
    // The healthy lines of the rig stay as the fallback; the first choice fails in bursts.
    await gw.admin.line({
      name: 'flaky',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, 'status=502'),
      models: [model],
      apiKeyEnv: KEY_ENV,
      priority: 10,
    });
    gw.running.gateway.health.baseCooldownMs = 200;
  });
  after(async () => {
    await gw.close();
  });

  test('each request fails over to the next line, the breaker takes the failing line out, and a probe puts it back once it recovers', async () => {
    const ask = async (name: string): Promise<{ status: number; attempts: number; text: string }> => {
      const key = await gw.admin.key(name);
      const answer = await askWith('openai-chat', gw.url, key, { model, stream: name.endsWith('s'), prompt: 'hello' });
      const [row] = await gw.admin.logs({ key: name });
      return { status: row!.status, attempts: row!.attempts, text: answer.text };
    };
    for (const status of [500, 502, 503]) {
      await gw.admin.client.call('updateLine', {
        params: { name: 'flaky' },
        body: { baseUrl: scenarioBase(mock, `status=${status}`) },
      });
      gw.running.gateway.health.record(
        (await gw.admin.client.call('listLines')).lines.find((l) => l.name === 'flaky')!.id,
        'up',
        Date.now(),
      );
      // Three failures in a row open the breaker: each of those requests was still answered.
      for (const i of [1, 2, 3]) {
        const r = await ask(`burst${status}.${i}${i % 2 ? 's' : ''}`);
        assert.deepEqual([r.status, r.attempts], [200, 2], `request ${i} of the ${status} burst`);
        assert.ok(r.text.length > 0);
      }
      // Open: the failing line is skipped, not tried again.
      const skipped = await ask(`burst${status}.open`);
      assert.deepEqual([skipped.status, skipped.attempts], [200, 1]);
    }
    // The upstream recovers; after the cool-down one probe goes to it and closes the breaker.
    await gw.admin.client.call('updateLine', {
      params: { name: 'flaky' },
      body: { baseUrl: scenarioBase(mock, 'words=3') },
    });
    await sleep(gw.running.gateway.health.baseCooldownMs * 8);
    const before = mock.requests.length;
    const probe = await ask('recovered.probe');
    assert.deepEqual([probe.status, probe.attempts], [200, 1]);
    assert.equal(mock.requests.at(-1)!.scenario.name, 'words=3', 'the probe went to the recovered line');
    assert.equal(mock.requests.length, before + 1);
    await assertSettled(gw, 'the 5xx burst');
  });
});
