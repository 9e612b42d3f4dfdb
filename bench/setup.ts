/** A fresh gateway made ready for the bench through its admin API, as a user would: wallet, lines, one key. */
import { AdminClient, bearer } from '../gateway/contract/admin/index.js';
import { LINE_MODELS, SCENARIOS, type LineProtocol, type Upstream } from './matrix.js';

/** The gateway reads the upstream key from this variable at request time; the mock only checks one is sent. */
export const UPSTREAM_KEY_ENV = 'TOLLGATE_BENCH_UPSTREAM_KEY';
export const UPSTREAM_KEY = 'bench-upstream-key';

/** 100,000 USD: a run spends well under 100 USD, so no request is ever refused for money. */
const TOPUP_MICRO = 100_000 * 1_000_000;

export async function setupGateway(gatewayUrl: string, adminToken: string, mockUrl: string): Promise<{ key: string }> {
  const admin = new AdminClient({ baseUrl: gatewayUrl, headers: bearer(adminToken) });
  await admin.call('topUp', { body: { amountMicro: TOPUP_MICRO, note: 'bench' } });
  for (const protocol of Object.keys(LINE_MODELS) as LineProtocol[]) {
    for (const upstream of Object.keys(SCENARIOS) as Upstream[]) {
      // OpenAI-style base URLs include /v1; Anthropic's is the origin (the provider adds /v1/messages).
      const origin = `${mockUrl}/s/${SCENARIOS[upstream]}`;
      await admin.call('addLine', {
        body: {
          name: `${protocol}-${upstream}`,
          protocol,
          baseUrl: protocol === 'openai-chat' ? `${origin}/v1` : origin,
          models: [LINE_MODELS[protocol][upstream]],
          apiKeyEnv: UPSTREAM_KEY_ENV,
        },
      });
    }
  }
  const created = await admin.call('createKey', { body: { name: `bench-${process.pid}` } });
  return { key: created.secret };
}

/** `GET /api/doctor` after the run: the ledger invariant must still hold under load. */
export async function doctor(gatewayUrl: string, adminToken: string): Promise<{ ok: boolean; failed: string[] }> {
  const report = await new AdminClient({ baseUrl: gatewayUrl, headers: bearer(adminToken) }).call('runDoctor');
  return { ok: report.ok, failed: report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`) };
}
