/**
 * Fault injection against the mock upstream (docs/reliability.md): each fault on every client
 * protocol, passed through (the line speaks the client's protocol) and translated, streaming and
 * not where the fault applies. Every request must end in a well-formed error of the client's own
 * protocol, one ledger row with that status, what was produced billed, nothing held, and the ledger
 * invariant intact.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { askWith, PROTOCOLS, statusOf, type Protocol } from '../helpers/clients.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import {
  assertSettled,
  closeBreakers,
  faultyGateway,
  isProtocolError,
  MODEL_OF,
  onlyRow,
  TRANSLATED_TO,
  type Timeouts,
} from './rig.js';

interface Fault {
  name: string;
  scenario: string;
  timeouts?: Timeouts;
  /** Which modes the fault applies to. */
  modes: ('stream' | 'whole')[];
  /** The status the client sees and the row records, when the answer had not started. */
  status: number;
}

const QUICK: Timeouts = { firstByteMs: 400, idleMs: 400, totalMs: 5000 };

const FAULTS: Fault[] = [
  {
    name: 'the upstream drops the connection mid-answer',
    scenario: 'drop-after=3,words=20',
    modes: ['stream', 'whole'],
    status: 502,
  },
  { name: 'malformed SSE and JSON', scenario: 'malformed-at=4,words=20', modes: ['stream', 'whole'], status: 502 },
  { name: 'an HTML page with status 200', scenario: 'html', modes: ['stream', 'whole'], status: 502 },
  {
    name: 'a stall before the first byte',
    scenario: 'delay=600000',
    timeouts: QUICK,
    modes: ['stream', 'whole'],
    status: 504,
  },
  {
    name: 'a stall after the first event',
    scenario: 'chunk-delay=600000,words=20',
    timeouts: QUICK,
    modes: ['stream'],
    status: 504,
  },
  {
    name: 'an endless stream',
    scenario: 'endless,chunk-delay=2,words=20',
    timeouts: { ...QUICK, totalMs: 1500 },
    modes: ['stream'],
    status: 504,
  },
  { name: 'a content-length longer than the body', scenario: 'content-length=100000', modes: ['whole'], status: 502 },
  { name: 'a content-length shorter than the body', scenario: 'content-length=40', modes: ['whole'], status: 502 },
  {
    name: 'a huge content-length, then silence',
    scenario: 'content-length=999999999999,hold-open',
    timeouts: QUICK,
    modes: ['whole'],
    status: 504,
  },
  { name: 'every line answers 503', scenario: 'status=503', modes: ['stream', 'whole'], status: 503 },
  { name: 'every line answers 500', scenario: 'status=500', modes: ['stream', 'whole'], status: 502 },
];

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});

after(async () => {
  await mock.close();
});

for (const fault of FAULTS) {
  // A fault that ends in a timeout runs its requests at once: each waits out the timeout, and all
  // are sent before the first fails, so the failures they count on their line cannot open its
  // breaker under a test that has not started (the fast ones run one by one for that reason).
  const concurrent = fault.timeouts !== undefined;
  describe(fault.name, { concurrency: concurrent }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await faultyGateway(mock, fault.scenario, fault.timeouts);
    });
    after(async () => {
      // Concurrent requests hold money while others are checked: the wallet is checked once all ended.
      await assertSettled(gw, fault.name);
      await gw.close();
    });
    for (const client of PROTOCOLS) {
      for (const upstream of [client, TRANSLATED_TO[client]] as Protocol[]) {
        for (const mode of fault.modes) {
          const stream = mode === 'stream';
          const what = `${client} → ${upstream}${stream ? ', streaming' : ''}`;
          test(what, async () => {
            const keyName = `${client}.${upstream}.${mode}`;
            const key = await gw.admin.key(keyName);
            await closeBreakers(gw);
            let text = '';
            const err = await askWith(client, gw.url, key, {
              model: MODEL_OF[upstream],
              stream,
              prompt: 'hello',
              onText: (piece) => void (text += piece),
            }).then(
              (answer) => assert.fail(`answered as if whole: ${JSON.stringify(answer).slice(0, 200)}`),
              (e: unknown) => e,
            );
            assert.ok(isProtocolError(err), `not the protocol's error: ${String(err)}`);
            const row = await onlyRow(gw, keyName);
            assert.ok(row.errorCode, 'the row names the error');
            assert.equal(row.status, fault.status, `row ${row.status} ${row.errorCode}`);
            // An error status when nothing had been sent; else the stream's in-band error event.
            const status = statusOf(err);
            if (status !== undefined) assert.equal(status, fault.status, String(err));
            else assert.ok(stream, `a whole answer failed without a status: ${String(err)}`);
            // What reached the client is billed.
            if (text !== '')
              assert.ok(
                row.usage.outputTokens >= 1 && row.costMicro > 0,
                `produced ${text.length} chars, billed ${JSON.stringify(row.usage)} ${row.costMicro}`,
              );
            if (!concurrent) await assertSettled(gw, what);
          });
        }
      }
    }
  });
}
