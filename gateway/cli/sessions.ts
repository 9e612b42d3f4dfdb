/**
 * `tollgate sessions`: agent sessions and what each cost (docs/sessions.md), one session's requests
 * with the cost so far, and resuming a session a guard paused.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { AdminClient, KeyView, SessionView } from '../contract/admin/index.js';
import { parseBudgets, WINDOW_IDS, type BudgetWindow } from '../contract/sessions.js';
import { usd, usdCost } from '../contract/money.js';
import { amount } from './args.js';
import { table, utcTime as time, withUsd } from './format.js';
import { json, print } from './output.js';

const percent = (rate: number): string => `${(rate * 100).toFixed(1)} %`;

function row(s: SessionView): (string | number)[] {
  return [
    s.id,
    s.tool,
    s.keyName ?? '-',
    s.project ?? '-',
    time(s.firstTs),
    time(s.lastTs),
    s.requests,
    s.promptTokens + s.outputTokens,
    s.costMicro,
    percent(s.cacheHitRate),
    s.state,
    s.pause?.reason ?? '',
  ];
}

const HEADERS = [
  'ID',
  'TOOL',
  'KEY',
  'PROJECT',
  'FIRST',
  'LAST',
  'REQUESTS',
  'TOKENS',
  'COST µ$',
  'CACHE HIT',
  'STATE',
  'PAUSED BECAUSE',
];

/** A session's JSON for --json: each …Micro amount with its …Usd text beside it. */
function sessionJson(s: SessionView): Record<string, unknown> {
  return { ...withUsd(s), tokens: s.promptTokens + s.outputTokens };
}

export function registerSessions(program: Command, client: () => AdminClient): void {
  const sessions = program
    .command('sessions')
    .description('agent sessions (Claude Code, Codex, Gemini CLI, …): what each cost, latest first')
    .option('--key <name>', 'only this key')
    .option('--tool <tool>', 'only this tool: claude-code, codex, gemini-cli, opencode, openai-sdk, …')
    .option('--active', 'only sessions with a request in the last 5 minutes or one in flight')
    .option('--json', 'machine-readable output (amounts also as USD text)')
    .action(async (o: { key?: string; tool?: string; active?: boolean; json?: boolean }) => {
      const { sessions: list } = await client().call('listSessions', {
        query: {
          ...(o.key ? { key: o.key } : {}),
          ...(o.tool ? { tool: o.tool } : {}),
          ...(o.active ? { active: true } : {}),
        },
      });
      if (o.json) return json(list.map(sessionJson));
      print(table(HEADERS, list.map(row)));
    });

  sessions
    .command('show <id>')
    .description('a session: its totals, its requests in order with the cost so far, and its sub-agents')
    .option('--json', 'machine-readable output')
    .action(async (id: string, o: { json?: boolean }) => {
      const d = await client().call('getSession', { params: { id } });
      if (o.json)
        return json({
          session: sessionJson(d.session),
          requests: d.requests.map((r) => withUsd(r)),
          agents: d.agents.map((a) => withUsd(a)),
        });
      const s = d.session;
      print(table(HEADERS, [row(s)]));
      print(
        `Cost ${usd(s.costMicro)}${s.capMicro !== null ? ` of a ${usd(s.capMicro)} cap` : ''}; cache hit rate ${percent(s.cacheHitRate)}, saving ${usd(s.savedMicro)}.`,
      );
      if (s.pause)
        print(`Paused (${s.pause.guard}): ${s.pause.reason}${s.pause.call ? `\nRepeated call: ${s.pause.call}` : ''}`);
      print('');
      print(
        table(
          ['TIME', 'AGENT', 'MODEL', 'STATUS', 'IN', 'CACHE R', 'OUT', 'COST', 'SO FAR'],
          d.requests.map((r) => [
            time(r.ts),
            r.agent ?? 'main',
            r.model ?? '-',
            r.status,
            r.usage.inputTokens,
            r.usage.cacheReadTokens,
            r.usage.outputTokens,
            usdCost(r.costMicro),
            usdCost(r.cumulativeMicro),
          ]),
        ),
      );
      if (d.agents.length > 0) {
        print('');
        print(
          table(
            ['SUB-AGENT', 'REQUESTS', 'COST'],
            d.agents.map((a) => [a.agent, a.requests, usdCost(a.costMicro)]),
          ),
        );
      }
    });

  sessions
    .command('resume <id>')
    .description('unpause a session a guard paused; --add raises its cap by that much')
    .option('--add <usd>', "raise the session's cap by this many USD", amount)
    .action(async (id: string, o: { add?: number }) => {
      const { session } = await client().call('resumeSession', {
        params: { id },
        body: o.add !== undefined ? { addMicro: o.add } : {},
      });
      print(
        `Session ${session.id} resumed${session.capMicro !== null ? `; its cap is ${usd(session.capMicro)}, ${usd(session.costMicro)} spent` : ''}.`,
      );
    });
}

/** The session flags of `keys create` and `keys update`. */
export function keySessionOptions(cmd: Command): Command {
  return cmd
    .option(
      '--session-cap <usd>',
      'what one agent session may spend; reaching it pauses the session (0 removes the cap)',
      amount,
    )
    .option(
      '--budget <window=usd,...>',
      'budgets over rolling windows, e.g. 5h=5,1d=20 (windows 5h, 1d, 7d, 30d; WINDOW=none removes one)',
      budgets,
    )
    .option(
      '--loop-limit <n>',
      'pause a session after the same tool call and result this many times in a row (0: off)',
      loopLimit,
    )
    .option('--project <label>', "the project its requests count under (default: the key's name)");
}

export interface KeySessionFlags {
  sessionCap?: number;
  budget?: Partial<Record<BudgetWindow, number | null>>;
  loopLimit?: number;
  project?: string;
}

/** The flags given, as the fields of a key body. */
export function keySessionBody(o: KeySessionFlags) {
  return {
    ...(o.sessionCap !== undefined ? { sessionCapMicro: o.sessionCap === 0 ? null : o.sessionCap } : {}),
    ...(o.budget !== undefined ? { budgets: o.budget } : {}),
    ...(o.loopLimit !== undefined ? { loopLimit: o.loopLimit } : {}),
    ...(o.project !== undefined ? { project: o.project === '' ? null : o.project } : {}),
  };
}

function budgets(v: string): Partial<Record<BudgetWindow, number | null>> {
  const out: Partial<Record<BudgetWindow, number | null>> = {};
  try {
    for (const part of v.split(',')) {
      const [w, amount] = part.split('=').map((x) => x.trim());
      if (amount === 'none' && w !== undefined && (WINDOW_IDS as string[]).includes(w)) out[w as BudgetWindow] = null;
      else Object.assign(out, parseBudgets(part));
    }
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return out;
}

function loopLimit(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw new InvalidArgumentError('--loop-limit takes a whole number from 0 (off) to 1000.');
  return n;
}

/** The session fields of a key for `keys list`. */
export function keySessionCells(k: KeyView): string[] {
  const b = WINDOW_IDS.flatMap((w) => (k.budgets[w] !== undefined ? [`${w}=${usd(k.budgets[w])}`] : []));
  return [
    k.sessionCapMicro === null ? '-' : usd(k.sessionCapMicro),
    b.length > 0 ? b.join(',') : '-',
    k.loopLimit === 0 ? 'off' : String(k.loopLimit),
    k.project ?? '-',
  ];
}
