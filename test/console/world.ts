/**
 * The world most console tests start from: a mock upstream, a gateway with $10 in its wallet (or
 * `walletMicro`) and one line, `local`, serving gpt-4o from the mock, and a Chromium to open the
 * console in.
 */
import type { Browser } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { assertConsoleBuilt, launch } from './browser.js';

export interface ConsoleWorld {
  gw: TestGateway;
  mock: MockUpstream;
  browser: Browser;
}

export async function startConsoleWorld(opts: { walletMicro?: number } = {}): Promise<ConsoleWorld> {
  assertConsoleBuilt();
  const mock = await startMockUpstream();
  const gw = await startGateway();
  const browser = await launch();
  await gw.admin.call('topUp', { body: { amountMicro: opts.walletMicro ?? 10_000_000 } });
  await gw.admin.line({
    name: 'local',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o'],
    modelMap: { 'gpt-4o': 'mock-small' },
  });
  return { gw, mock, browser };
}
