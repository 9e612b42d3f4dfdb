/**
 * The fault suites' rig: a gateway whose four lines (one per upstream protocol) all misbehave the
 * same way, clients on all four protocols through their official SDKs, and the checks every fault
 * must pass: a well-formed error in the client's protocol, one ledger row per request with the
 * right status, nothing left held, and the ledger invariant.
 */
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import OpenAI from 'openai';
import type { LogEntry } from '../../gateway/contract/admin/index.js';
import { StreamFailed, type Protocol } from '../helpers/clients.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, type MockUpstream } from '../helpers/mock-upstream.js';

/** The catalogue model each upstream protocol's line serves. */
export const MODEL_OF: Record<Protocol, string> = {
  'openai-chat': 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  'openai-responses': 'gpt-5-mini',
  gemini: 'gemini-2.5-flash',
};

/** The upstream a client protocol is translated to (its own is passed through). */
export const TRANSLATED_TO: Record<Protocol, Protocol> = {
  'openai-chat': 'anthropic',
  anthropic: 'openai-chat',
  'openai-responses': 'openai-chat',
  gemini: 'openai-chat',
};

export const KEY_ENV = 'TOLLGATE_TEST_UPSTREAM_KEY';
process.env[KEY_ENV] = 'upstream-secret';

export interface Timeouts {
  firstByteMs?: number;
  idleMs?: number;
  totalMs?: number;
}

/** A gateway with one line per upstream protocol, all on `scenario`. */
export async function faultyGateway(
  mock: MockUpstream,
  scenario: string,
  timeouts: Timeouts = {},
): Promise<TestGateway> {
  const gw = await startGateway();
  await gw.admin.topup(50);
  for (const [protocol, model] of Object.entries(MODEL_OF) as [Protocol, string][]) {
    const baseUrl =
      protocol === 'openai-chat' || protocol === 'openai-responses'
        ? scenarioBase(mock, scenario)
        : scenarioOrigin(mock, scenario);
    await gw.admin.line({ name: protocol, protocol, baseUrl, models: [model], apiKeyEnv: KEY_ENV, timeouts });
  }
  return gw;
}

/**
 * Whether `err` is the client protocol's own error, as its SDK raises it for an error status or an
 * in-band stream error, rather than a broken connection or a parse failure of the SDK.
 */
export function isProtocolError(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionError || err instanceof Anthropic.APIConnectionError) return false;
  return (
    err instanceof OpenAI.APIError ||
    err instanceof Anthropic.APIError ||
    err instanceof ApiError ||
    err instanceof StreamFailed
  );
}

/**
 * Closes every line's breaker: each test in a suite starts on healthy lines, so the failures of
 * the tests before it do not turn its fault into a 503 "cooling down".
 */
export async function closeBreakers(gw: TestGateway): Promise<void> {
  const { lines } = await gw.admin.client.call('listLines');
  for (const line of lines) gw.running.gateway.health.record(line.id, 'up', Date.now());
}

/** The one ledger row of a key (each request in these suites has a key of its own). */
export async function onlyRow(gw: TestGateway, key: string): Promise<LogEntry> {
  const rows = await gw.admin.logs({ key });
  assert.equal(rows.length, 1, `${key}: ${rows.length} rows`);
  return rows[0]!;
}

/** Nothing held, and top-ups − balance = Σ logged costs. */
export async function assertSettled(gw: TestGateway, what: string): Promise<void> {
  const w = await gw.admin.wallet();
  assert.equal(w.heldMicro, 0, `${what}: still held`);
  const inv = gw.running.gateway.ledger.checkInvariant();
  assert.equal(inv.ok, true, `${what}: ${JSON.stringify(inv)}`);
}
