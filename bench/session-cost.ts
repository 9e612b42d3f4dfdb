/**
 * The CPU the session work adds to one model request, in process: attribution (gateway/sessions/identify.ts,
 * run by the request guard), the loop guard and the paused-session check, the cap and budget windows as
 * admission's limit, the hold, and the settlement's bookkeeping, exactly the calls the request path makes
 * (http/guard.ts, relay/model-route.ts, compose/gateway.ts), on the real `Sessions` class. The ledger's
 * part (the session totals in the group commit) is not here: the bench's profiles show it under
 * gateway/store. Reading `process.cpuUsage()` around many requests of one scenario keeps other processes'
 * load out of the figure, which a whole-bench run on a shared machine cannot.
 *
 * Every scenario runs in five rounds, interleaved; the table gives the median round. `--gateway DIR` loads
 * the session code of another checkout (its sources, not dist/), for an A/B comparison in one process.
 *
 * Usage: node --expose-gc --import tsx bench/session-cost.ts [--requests N] [--gateway DIR]
 */
import type { FormatId } from '../gateway/contract/formats.js';
import { pathToFileURL } from 'node:url';
import { emptyUsage } from '../gateway/core/usage.js';
import type { Sessions as SessionsClass, SessionStore } from '../gateway/sessions/sessions.js';
import type { RequestRow } from '../gateway/store/ledger.js';
import type { KeyRecord } from '../gateway/store/types.js';
import { median } from './stats.js';

const at = process.argv.indexOf('--requests');
const REQUESTS = at >= 0 ? Number(process.argv[at + 1]) : 200_000;
const dirAt = process.argv.indexOf('--gateway');
const root = dirAt >= 0 ? `${process.argv[dirAt + 1]}/` : new URL('../', import.meta.url).pathname;
const { Sessions } = (await import(pathToFileURL(`${root}gateway/sessions/sessions.ts`).href)) as {
  Sessions: typeof SessionsClass;
};
type Sessions = SessionsClass;

/** The ledger's side, empty: a session or key is read from it once, when first seen. */
const store: SessionStore = {
  get: () => undefined,
  state: () => undefined,
  setState: () => undefined,
  latestAssignedOf: () => undefined,
  keyMinutes: () => [],
};

function key(over: Partial<KeyRecord>): KeyRecord {
  return {
    id: 'k1',
    name: 'bench',
    hash: 'h',
    last4: 'abcd',
    group: 'default',
    quotaMicro: null,
    expiresAt: null,
    state: 'enabled',
    createdAt: '2026-11-27T00:00:00.000Z',
    ...over,
  } as KeyRecord;
}

/** A coding agent's conversation: `turns` rounds of a tool call and its result, ending with a result. */
function agentBody(turns: number, round: (i: number) => string): { body: unknown; raw: string } {
  const messages: unknown[] = [{ role: 'user', content: 'Fix the failing test in src/parser.ts. '.repeat(40) }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `src/file${i % 7}.ts` } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: round(i) }],
    });
  }
  const body = { model: 'claude-sonnet-4-5', max_tokens: 4096, messages };
  return { body, raw: JSON.stringify(body) };
}

interface Scenario {
  name: string;
  key: KeyRecord;
  format: FormatId;
  headers: (i: number) => Record<string, string>;
  /** The request's body (parsed and as received) for request i. */
  body: (i: number) => { body: unknown; raw: string };
}

const chatBody = (() => {
  const body = {
    model: 'gpt-4o-mini',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Say hello. '.repeat(180) }],
  };
  return { body, raw: JSON.stringify(body) };
})();

const SCENARIOS: Scenario[] = [
  {
    name: 'SDK or curl, no session id, key without caps (the bench requests)',
    key: key({}),
    format: 'openai-chat',
    headers: () => ({ 'user-agent': 'wrk', authorization: 'Bearer sk-x', 'content-type': 'application/json' }),
    body: () => chatBody,
  },
  {
    name: 'Claude Code session, cap and two budget windows, 120 KB conversation ending in a tool result',
    key: key({ sessionCapMicro: 1e12, budgets: { '5h': 1e12, '1d': 1e12 } }),
    format: 'anthropic',
    headers: () => ({
      'user-agent': 'claude-cli/2.0.50 (external, cli)',
      'x-claude-code-session-id': '2f0c1c9e-4a4b-4e0a-9d55-1b3c1c0c7d11',
      'x-api-key': 'sk-x',
      'anthropic-version': '2023-06-01',
    }),
    // Each request a turn longer, with a new result, as an honest agent's conversation grows.
    body: (() => {
      const bodies = Array.from({ length: 64 }, (_, i) =>
        agentBody(60 + i, (j) => `export const value${j} = ${j};\n`.repeat(60)),
      );
      return (i: number) => bodies[i % bodies.length]!;
    })(),
  },
];

function run(s: Scenario, sessions: Sessions, n: number, offset: number): void {
  for (let i = 0; i < n; i++) {
    const requestId = `req_${offset + i}`;
    const { body, raw } = s.body(i);
    // The request guard (http/guard.ts).
    const who = sessions.attribute(s.key, s.headers(i));
    // The model route (relay/model-route.ts): the guards, admission's limit, the hold.
    sessions.check(who, s.key, s.format, body, raw);
    const limit = sessions.limit(who, s.key);
    limit.check(Math.min(2_000, limit.freeMicro));
    sessions.hold(who, s.key, requestId, 2_000);
    // Settlement (compose/gateway.ts, billing's settled listener).
    const row = {
      requestId,
      ts: Date.now(),
      keyId: s.key.id,
      keyName: s.key.name,
      session: who.id,
      agent: who.agent,
      tool: who.tool,
      project: who.project,
      costMicro: 1_500,
      usage: emptyUsage(),
      status: 200,
    } as unknown as RequestRow;
    sessions.settled(row, s.key);
  }
}

const ROUNDS = 5;
const perRound = Math.ceil(REQUESTS / ROUNDS);
const states = SCENARIOS.map((s) => {
  const sessions = new Sessions(store);
  // A listener, as the admin event stream registers one (it returns at once without subscribers).
  sessions.onChange(() => undefined);
  run(s, sessions, Math.min(20_000, perRound), 0);
  return { s, sessions, rounds: [] as number[] };
});
for (let r = 0; r < ROUNDS; r++) {
  for (const st of states) {
    globalThis.gc?.();
    const cpu0 = process.cpuUsage();
    run(st.s, st.sessions, perRound, (r + 1) * 1_000_000);
    const cpu = process.cpuUsage(cpu0);
    st.rounds.push((cpu.user + cpu.system) / perRound);
  }
}
/** For scale: what parsing the scenario's body once costs (the gateway parses every body once). */
function parseUs(raw: string): number {
  const n = Math.max(50, Math.floor(20_000_000 / raw.length));
  for (let i = 0; i < n / 10; i++) JSON.parse(raw);
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) JSON.parse(raw);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / n;
}
const lines = states.map(
  ({ s, rounds }) =>
    `| ${s.name} | ${median(rounds).toFixed(2)} | ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)} | ${parseUs(s.body(0).raw).toFixed(1)} |`,
);
process.stdout.write(
  `Session work per request (${root}), ${ROUNDS} rounds of ${perRound.toLocaleString('en-US')} requests per scenario\n\n` +
    '| scenario | CPU µs per request (median round) | rounds | JSON.parse of its body, µs (for scale) |\n|---|---:|---:|---:|\n' +
    lines.join('\n') +
    '\n',
);
