/**
 * A gateway with a month of usage for the Overview's browser tests: requests made now with the
 * OpenAI SDK (sessions and projects named by header, one failure with no line to serve it), and
 * earlier days written into the ledger the way settlement writes them (the API has no way to
 * backdate a request), by two keys, three models and the tools the sessions feature recognises.
 */
import type { RequestRow } from '../../gateway/store/ledger.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';

const DAY = 86_400_000;

/** The requests made live, for the assertions: laptop spends most in the current hour. */
export const LIVE = { laptop: 4, ci: 2, failed: 1 };

export async function fillOverview(gw: TestGateway, mock: MockUpstream): Promise<void> {
  const a = gw.admin;
  await a.topup(50);
  await a.line({
    name: 'local',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o', 'gpt-4o-mini'],
    modelMap: { 'gpt-4o': 'mock-small', 'gpt-4o-mini': 'mock-small' },
  });
  const laptop = await a.key('laptop');
  const ci = await a.key('ci');
  const keys = (await a.call('listKeys')).keys;
  const idOf = (name: string): string => keys.find((k) => k.name === name)!.id;
  const ledger = gw.running.gateway.ledger;
  const now = Date.now();
  const rows: Promise<void>[] = [];
  // Twenty earlier days, a few requests each, at hours that vary.
  for (let d = 1; d <= 20; d++) {
    for (let j = 0; j < 3 + (d % 4); j++) {
      const n = d * 10 + j;
      const tool = n % 3 === 0 ? 'codex' : 'claude-code';
      const key = n % 4 === 0 ? 'ci' : 'laptop';
      rows.push(
        ledger.settle(
          pastRow({
            n,
            ts: now - d * DAY - ((n * 37) % 20) * 3_600_000,
            key,
            keyId: idOf(key),
            model: ['claude-sonnet-4-6', 'gpt-4o', 'gpt-4o-mini'][n % 3]!,
            tool,
            session: `${tool}-day${d}-${j % 2}`,
            project: n % 5 === 0 ? 'website' : 'tollgate',
            failed: n % 9 === 0,
          }),
        ),
      );
    }
  }
  await Promise.all(rows);
  // Then today's, made through the gateway, so that they are the newest rows.
  for (let i = 0; i < LIVE.laptop; i++)
    await gw
      .openai(laptop)
      .chat.completions.create(
        { model: 'gpt-4o', messages: [{ role: 'user', content: `refactor the parser, step ${i}` }] },
        { headers: { 'x-tollgate-session': 'sess-refactor', 'x-tollgate-project': 'tollgate' } },
      );
  for (let i = 0; i < LIVE.ci; i++)
    await gw
      .openai(ci)
      .chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${i}` }] },
        { headers: { 'x-tollgate-project': 'website' } },
      );
  await gw
    .openai(ci)
    .chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'no line serves this' }] })
    .catch(() => undefined);
}

function pastRow(p: {
  n: number;
  ts: number;
  key: string;
  keyId: string;
  model: string;
  tool: string;
  session: string;
  project: string;
  failed: boolean;
}): RequestRow {
  const input = 800 + ((p.n * 131) % 4000);
  const cached = p.tool === 'claude-code' ? input * 3 : 0;
  return {
    requestId: `req_past_${p.n}`,
    ts: p.ts,
    keyId: p.keyId,
    keyName: p.key,
    model: p.model,
    servedModel: null,
    upstreamModel: null,
    line: 'local',
    attempts: 1,
    inboundProtocol: p.tool === 'codex' ? 'openai-responses' : 'anthropic',
    upstreamProtocol: 'openai-chat',
    stream: true,
    status: p.failed ? 502 : 200,
    errorCode: p.failed ? 'upstream_error' : null,
    errorMessage: p.failed ? 'the upstream answered 502' : null,
    usage: {
      inputTokens: p.failed ? 0 : input,
      outputTokens: p.failed ? 0 : 300 + ((p.n * 17) % 900),
      cacheReadTokens: p.failed ? 0 : cached,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: p.failed ? 0 : 2_000 + ((p.n * 7_919) % 60_000),
    unchargedMicro: 0,
    latencyMs: 900 + ((p.n * 53) % 4000),
    ttfbMs: 300,
    notes: null,
    billedAt: null,
    session: p.session,
    agent: null,
    tool: p.tool,
    project: p.project,
    savedMicro: 0,
  };
}
