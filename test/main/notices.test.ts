import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notices } from '../../main/notices.js';
import { initialState } from '../../main/state.js';
import { gatewaySettings, key, line, NOW, runningState, settings, wallet } from './fixtures.js';

test("the balance falling below the gateway's threshold notifies once, on the crossing", () => {
  const s = settings();
  const above = runningState({ wallet: wallet(1_000_000) });
  const below = runningState({ wallet: wallet(999_999) });
  assert.deepEqual(
    notices(above, below, s).map((n) => n.kind),
    ['lowBalance'],
  );
  // $0.999999 to the cent, as every balance is shown (gateway/contract/money.ts).
  assert.match(notices(above, below, s)[0]!.body, /holds \$1\.00\./);
  assert.deepEqual(notices(below, runningState({ wallet: wallet(5) }), s), [], 'already below: no repeat');
  assert.deepEqual(notices(initialState(NOW), below, s), [], 'first learnt from a snapshot: no notice');
  // The threshold is the gateway's setting: off (null) never notifies, and a change of it alone is not news.
  const off = { settings: gatewaySettings({ lowBalanceMicro: null }) };
  assert.deepEqual(notices({ ...above, ...off }, { ...below, ...off }, s), []);
  const raised = runningState({ wallet: wallet(1_000_000), settings: gatewaySettings({ lowBalanceMicro: 5_000_000 }) });
  assert.deepEqual(notices(above, raised, s), [], 'the threshold raised above the balance');
  const higher = { settings: gatewaySettings({ lowBalanceMicro: 3_000_000 }) };
  assert.deepEqual(
    notices(
      runningState({ wallet: wallet(3_000_000), ...higher }),
      runningState({ wallet: wallet(2_999_999), ...higher }),
      s,
    ).map((n) => n.kind),
    ['lowBalance'],
  );
});

test('a key passing 90 % of its quota notifies; keys without quota never do', () => {
  const s = settings();
  const before = runningState({
    keys: [key('a', { quotaMicro: 1_000_000, usedMicro: 899_999 }), key('b', { usedMicro: 1e9 })],
  });
  const after = runningState({
    keys: [key('a', { quotaMicro: 1_000_000, usedMicro: 900_000 }), key('b', { usedMicro: 2e9 })],
  });
  const got = notices(before, after, s);
  assert.deepEqual(
    got.map((n) => n.title),
    ['Tollgate: key "a" nearly at its quota'],
  );
  assert.deepEqual(notices(after, after, s), []);
});

test('a line whose circuit opens notifies', () => {
  const got = notices(
    runningState({ lines: [line('openai', 'closed')] }),
    runningState({ lines: [line('openai', 'open')] }),
    settings(),
  );
  assert.deepEqual(
    got.map((n) => n.kind),
    ['lineDown'],
  );
  assert.match(got[0]!.body, /retried in 30 s/);
  assert.deepEqual(
    notices(
      runningState({ lines: [line('openai', 'open')] }),
      runningState({ lines: [line('openai', 'open')] }),
      settings(),
    ),
    [],
  );
});

test('a line that stays down notifies once: its probe failing (half-open, then open again) is the same outage', () => {
  const s = settings();
  const states = ['closed', 'open', 'half-open', 'open', 'half-open', 'open', 'half-open', 'closed', 'open'] as const;
  const kinds = states
    .slice(1)
    .flatMap((st, i) =>
      notices(
        runningState({ lines: [line('openai', states[i])] }),
        runningState({ lines: [line('openai', st)] }),
        s,
      ).map((n) => `${i + 1}:${n.kind}`),
    );
  assert.deepEqual(kinds, ['1:lineDown', '8:lineDown'], 'the first opening, and again only after it had recovered');
});

test('low balance and key quota notify again only after recovering: a top-up, then a new fall below', () => {
  const s = settings();
  const balances = [2_000_000, 900_000, 800_000, 700_000, 5_000_000, 999_999];
  const kinds = balances
    .slice(1)
    .flatMap((b, i) =>
      notices(runningState({ wallet: wallet(balances[i]!) }), runningState({ wallet: wallet(b) }), s).map(
        (n) => `${i + 1}:${n.kind}`,
      ),
    );
  assert.deepEqual(kinds, ['1:lowBalance', '5:lowBalance']);
  const used = [0, 950_000, 990_000, 1_000_000];
  const quota = used
    .slice(1)
    .flatMap((u, i) =>
      notices(
        runningState({ keys: [key('a', { quotaMicro: 1_000_000, usedMicro: used[i]! })] }),
        runningState({ keys: [key('a', { quotaMicro: 1_000_000, usedMicro: u })] }),
        s,
      ),
    );
  assert.equal(quota.length, 1, 'once per crossing of 90 %');
});

test('each kind can be turned off', () => {
  const off = settings({ notifications: { lowBalance: false, keyQuota: false, lineDown: false } });
  const before = runningState({
    wallet: wallet(2_000_000),
    keys: [key('a', { quotaMicro: 10, usedMicro: 0 })],
    lines: [line('x')],
  });
  const after = runningState({
    wallet: wallet(1),
    keys: [key('a', { quotaMicro: 10, usedMicro: 10 })],
    lines: [line('x', 'open')],
  });
  assert.equal(notices(before, after, settings()).length, 3);
  assert.deepEqual(notices(before, after, off), []);
});
