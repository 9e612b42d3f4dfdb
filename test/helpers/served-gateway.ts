/**
 * The gateway the admin route tests share (test/admin/routes.test.ts, routes-tools.test.ts,
 * refusals.test.ts): an in-process gateway with $10 and one line, `served`, serving gpt-4o from
 * the mock upstream (as mock-small), and the typed client's `call` for it.
 */
import type { CallArgs, Reply, RouteName } from '../../gateway/contract/admin/index.js';
import { startGateway, type TestGateway } from './gateway.js';
import { startMockUpstream, type MockUpstream } from './mock-upstream.js';

export interface ServedGateway {
  gw: TestGateway;
  mock: MockUpstream;
  call<N extends RouteName>(name: N, ...args: CallArgs<N>): Promise<Reply<N>>;
  close(): Promise<void>;
}

export async function servedGateway(): Promise<ServedGateway> {
  const gw = await startGateway();
  const mock = await startMockUpstream();
  await gw.admin.topup(10);
  await gw.admin.line({
    name: 'served',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o'],
    modelMap: { 'gpt-4o': 'mock-small' },
  });
  return {
    gw,
    mock,
    call: (name, ...args) => gw.admin.client.call(name, ...args),
    async close() {
      await gw.close();
      await mock.close();
    },
  };
}
