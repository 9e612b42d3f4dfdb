/**
 * Closing the gateway (`serve().close()`, what quitting the desktop app and Ctrl-C run): it never
 * waits on an idle keep-alive connection, lets a request in flight finish and log its row, and cuts
 * what is still running after the grace period, with the ledger invariant intact.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

/** A client that keeps its connections open for ten minutes, as some SDKs and tools do. */
function stickyClient(url: string, key: string): { client: OpenAI; agent: Agent } {
  const agent = new Agent({ keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });
  const client = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: key,
    maxRetries: 0,
    fetch: ((input: string, init: object) => undiciFetch(input, { ...init, dispatcher: agent })) as never,
  });
  return { client, agent };
}

const MSG = [{ role: 'user' as const, content: 'hi' }];

/** A gateway on a fresh data dir with $5 and a mock upstream, for one test; closed after it. */
async function withGateway(fn: (gw: TestGateway, mock: MockUpstream) => Promise<void>): Promise<void> {
  const mock = await startMockUpstream();
  const gw = await startGateway();
  try {
    await gw.admin.topup(5);
    await fn(gw, mock);
  } finally {
    await gw.close();
    await mock.close();
  }
}

/** Opens the data dir again after the close: what the ledger kept, and the doctor's verdict on it. */
async function reopened(dataDir: string, check: (again: TestGateway) => Promise<void>): Promise<void> {
  const again = await startGateway(dataDir);
  try {
    await check(again);
    assert.equal((await again.admin.doctor()).ok, true, 'the ledger invariant holds');
  } finally {
    await again.running.close();
  }
}

// Without the idle sweep, close() would wait for the client's ten-minute keep-alive, and the grace
// period is longer still: only closing idle connections lets this test end within its timeout.
test(
  'close() does not wait for an idle keep-alive connection, and a streaming request in flight finishes and is logged',
  { timeout: 120_000 },
  async () => {
    await withGateway(async (gw, mock) => {
      await gw.admin.line({ name: 'fast', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
      await gw.admin.line({ name: 'slow', baseUrl: scenarioBase(mock, 'chunk-delay=50,words=20'), models: ['gpt-4o'] });
      const key = await gw.admin.key('k');
      const idle = stickyClient(gw.url, key);
      const busy = stickyClient(gw.url, key);
      await idle.client.chat.completions.create({ model: 'gpt-4o-mini', messages: MSG });

      const stream = await busy.client.chat.completions.create({
        model: 'gpt-4o',
        messages: MSG,
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: string[] = [];
      let sawUsage = false;
      const reading = (async () => {
        for await (const c of stream) {
          chunks.push(c.choices[0]?.delta.content ?? '');
          if (c.usage) sawUsage = true;
        }
      })();
      await waitFor(() => chunks.length > 1, 'the stream to start');

      await gw.running.close(600_000);
      await reading;
      assert.ok(sawUsage, 'the stream in flight ran to its end');
      assert.ok(chunks.join('').split(' ').length >= 20, chunks.join(''));
      await Promise.all([idle.agent.close(), busy.agent.close()]);

      await reopened(gw.dataDir, async (again) => {
        const rows = await again.admin.logs();
        assert.deepEqual(
          rows.map((r) => [r.model, r.status]),
          [
            ['gpt-4o', 200],
            ['gpt-4o-mini', 200],
          ],
        );
        assert.ok(rows[0]!.costMicro > 0);
      });
    });
  },
);

test(
  'after the grace period close() cuts a request still running; it is settled before the ledger closes',
  { timeout: 120_000 },
  async () => {
    await withGateway(async (gw, mock) => {
      await gw.admin.line({ name: 'stalls', baseUrl: scenarioBase(mock, 'delay=600000'), models: ['gpt-4o'] });
      const key = await gw.admin.key('k');
      const pending = gw
        .openai(key)
        .chat.completions.create({ model: 'gpt-4o', messages: MSG })
        .then(
          () => assert.fail('a request cut at close succeeded'),
          (err: unknown) => err,
        );
      await waitFor(async () => (await gw.admin.wallet()).heldMicro > 0, 'the request to be admitted');

      await gw.running.close(200);
      assert.ok((await pending) instanceof OpenAI.APIConnectionError, 'the client sees its connection cut');

      await reopened(gw.dataDir, async (again) => {
        const rows = await again.admin.logs();
        assert.equal(rows.length, 1, 'the cut request has its row');
        assert.equal(rows[0]!.model, 'gpt-4o');
        const wallet = await again.admin.wallet();
        assert.deepEqual([wallet.heldMicro, wallet.balanceMicro + wallet.spentMicro], [0, 5_000_000]);
      });
    });
  },
);
