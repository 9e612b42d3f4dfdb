/**
 * A conversation sticks to its line (routing/affinity.ts): a model served by two lines of equal
 * priority and weight would alternate between them and keep both upstream caches cold; instead a
 * key's requests for a model go to the line they last used while it is healthy, and move only when
 * it fails (to the next line, which they then stick to).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  for (const name of ['one', 'two'])
    await gw.admin.line({ name, baseUrl: scenarioBase(mock, `reply=${name}`), models: ['gpt-4o-mini'] });
  key = await gw.admin.key('sticky');
});

after(async () => {
  await gw.close();
  await mock.close();
});

const ask = async (apiKey = key): Promise<string> =>
  (
    await gw.openai(apiKey).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })
  ).choices[0]!.message.content ?? '';

test('every request of a key and model goes to the line the first one used', async () => {
  const first = await ask();
  for (let i = 0; i < 12; i++) assert.equal(await ask(), first);
});

test('it moves only on failover, then sticks to the new line', async () => {
  const first = await ask();
  const other = first === 'one' ? 'two' : 'one';
  // The sticky line starts failing: the request fails over, and the next ones stay on the other line.
  await gw.admin.call('updateLine', {
    params: { name: first },
    body: { baseUrl: scenarioBase(mock, 'status=500') },
  });
  assert.equal(await ask(), other);
  await gw.admin.call('updateLine', {
    params: { name: first },
    body: { baseUrl: scenarioBase(mock, `reply=${first}`) },
  });
  for (let i = 0; i < 6; i++) assert.equal(await ask(), other);
});
