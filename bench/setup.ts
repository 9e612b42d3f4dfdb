/**
 * A fresh gateway made ready for the bench through its admin API, as a user would: wallet, lines, one key.
 * Plain HTTP rather than the typed admin client, whose reply checks follow this build's contract: the bench also
 * sets up other builds (`--gateway-dir`), whose replies may carry fewer fields.
 */
import { LINE_MODELS, SCENARIOS, type LineProtocol, type Upstream } from './matrix.js';

/** The gateway reads the upstream key from this variable at request time; the mock only checks one is sent. */
export const UPSTREAM_KEY_ENV = 'TOLLGATE_BENCH_UPSTREAM_KEY';
export const UPSTREAM_KEY = 'bench-upstream-key';

/** 100,000 USD: a run spends well under 100 USD, so no request is ever refused for money. */
const TOPUP_MICRO = 100_000 * 1_000_000;

/** One admin call; a status other than 2xx throws with the gateway's own message. */
async function call(
  gatewayUrl: string,
  adminToken: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

export async function setupGateway(gatewayUrl: string, adminToken: string, mockUrl: string): Promise<{ key: string }> {
  const post = (path: string, body: unknown) => call(gatewayUrl, adminToken, 'POST', path, body);
  await post('/api/wallet/topup', { amountMicro: TOPUP_MICRO, note: 'bench' });
  for (const protocol of Object.keys(LINE_MODELS) as LineProtocol[]) {
    for (const upstream of Object.keys(SCENARIOS) as Upstream[]) {
      // OpenAI-style base URLs include /v1; Anthropic's is the origin (the provider adds /v1/messages).
      const origin = `${mockUrl}/s/${SCENARIOS[upstream]}`;
      await post('/api/lines', {
        name: `${protocol}-${upstream}`,
        protocol,
        baseUrl: protocol === 'openai-chat' ? `${origin}/v1` : origin,
        models: [LINE_MODELS[protocol][upstream]],
        apiKeyEnv: UPSTREAM_KEY_ENV,
      });
    }
  }
  const created = (await post('/api/keys', { name: `bench-${process.pid}` })) as { secret: string };
  return { key: created.secret };
}

/** `GET /api/doctor` after the run: the ledger invariant must still hold under load. */
export async function doctor(gatewayUrl: string, adminToken: string): Promise<{ ok: boolean; failed: string[] }> {
  const report = (await call(gatewayUrl, adminToken, 'GET', '/api/doctor')) as {
    ok: boolean;
    checks: { ok: boolean; name: string; detail: string }[];
  };
  return { ok: report.ok, failed: report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`) };
}
