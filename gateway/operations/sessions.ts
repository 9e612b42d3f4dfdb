/**
 * Agent sessions (docs/sessions.md): the list, one session with its requests and sub-agents,
 * resuming a paused session, and what caching saved per key and day. The totals come from the ledger's sessions table; the pause, what
 * resumes added and what is held now from the session guards.
 */
import type { Gateway } from '../compose/gateway.js';
import { cacheHitRate, isToolId, type Guard } from '../contract/sessions.js';
import { usdExact } from '../contract/money.js';
import type { SessionRecord } from '../store/ledger-sessions.js';
import {
  AdminError,
  type ResumeSessionBody,
  type SavingsQuery,
  type SavingsView,
  type SessionDetailView,
  type SessionsQuery,
  type SessionView,
} from '../contract/admin/index.js';

/** A session with a request this recent, or one in flight, is active. */
export const ACTIVE_MS = 5 * 60_000;
/** At most this many of a session's requests are listed by `GET /api/sessions/:id`: the latest. */
const MAX_REQUESTS = 1_000;

export function sessionView(g: Gateway, r: SessionRecord, now = Date.now()): SessionView {
  const rt = g.sessions.runtime(r.id);
  const key = g.config.data.keys.find((k) => k.id === r.key_id);
  const base = key?.sessionCapMicro ?? null;
  return {
    id: r.id,
    tool: isToolId(r.tool) ? r.tool : 'unknown',
    keyName: r.key_name,
    project: r.project,
    firstTs: r.first_ts,
    lastTs: r.last_ts,
    requests: r.requests,
    errors: r.errors,
    promptTokens: r.prompt_tokens,
    cacheReadTokens: r.cache_read_tokens,
    outputTokens: r.output_tokens,
    costMicro: r.cost_micro,
    savedMicro: r.saved_micro,
    cacheHitRate: cacheHitRate({ promptTokens: r.prompt_tokens, cacheReadTokens: r.cache_read_tokens }),
    capMicro: base === null ? null : base + rt.addedMicro,
    heldMicro: rt.heldMicro,
    state: rt.pause ? 'paused' : now - r.last_ts < ACTIVE_MS || rt.heldMicro > 0 ? 'active' : 'idle',
    pause: rt.pause
      ? { guard: rt.pause.guard satisfies Guard, reason: rt.pause.reason, call: rt.pause.call, at: rt.pause.at }
      : null,
  };
}

export function listSessions(g: Gateway, q: SessionsQuery): SessionView[] {
  const now = Date.now();
  const limit = Math.min(q.limit ?? 100, 1000);
  g.ledger.flush();
  const rows = g.ledger.sessions.list({
    key: q.key,
    tool: q.tool,
    ...(q.active ? { since: now - ACTIVE_MS } : {}),
    limit,
  });
  const views = rows.map((r) => sessionView(g, r, now));
  return q.active ? views.filter((v) => v.state === 'active') : views;
}

function find(g: Gateway, id: string): SessionRecord {
  g.ledger.flush();
  const r = g.ledger.sessions.get(id);
  if (!r) throw new AdminError(404, 'unknown_session', `There is no session "${id}".`);
  return r;
}

export function getSession(g: Gateway, id: string): SessionDetailView {
  const r = find(g, id);
  const entries = g.ledger.reports.logs({ session: id, limit: MAX_REQUESTS }).reverse();
  // The cumulative cost starts from what the requests not listed (older than the page) cost.
  let cumulative = r.cost_micro - entries.reduce((sum, e) => sum + e.costMicro, 0);
  const requests = entries.map((e) => ({ ...e, cumulativeMicro: (cumulative += e.costMicro) }));
  return { session: sessionView(g, r), requests, agents: g.ledger.sessions.agents(id) };
}

export function resumeSession(g: Gateway, id: string, body: ResumeSessionBody | undefined): SessionView {
  const r = find(g, id);
  const add = body?.addMicro ?? 0;
  const key = g.config.data.keys.find((k) => k.id === r.key_id);
  if (add > 0 && (key?.sessionCapMicro ?? null) === null)
    throw new AdminError(
      400,
      'no_session_cap',
      `The key of session "${id}" has no session cap, so there is nothing to raise by ${usdExact(add)}. Resume without an amount.`,
    );
  g.sessions.resume(id, add, key);
  return sessionView(g, r);
}

const DAY_MS = 86_400_000;
/** `GET /api/savings` spans at most this many days: a bounded answer (its rows are read whole). */
const MAX_SAVINGS_DAYS = 366;

type Figures = SavingsView['total'];

function figures(rows: readonly Omit<Figures, 'cacheHitRate'>[]): Figures {
  const t = { requests: 0, promptTokens: 0, cacheReadTokens: 0, costMicro: 0, savedMicro: 0 };
  for (const r of rows) {
    t.requests += r.requests;
    t.promptTokens += r.promptTokens;
    t.cacheReadTokens += r.cacheReadTokens;
    t.costMicro += r.costMicro;
    t.savedMicro += r.savedMicro;
  }
  return { ...t, cacheHitRate: cacheHitRate(t) };
}

/**
 * What caching saved per key and per day, with each key's total over the range and the range's
 * total: the cache-hit rate (cache reads over every prompt token) and the dollars saved (cache
 * reads priced at the input price less what they cost), summed from the request rows.
 */
export function savings(g: Gateway, q: SavingsQuery): SavingsView {
  if (q.until <= q.since) throw new AdminError(400, 'invalid_request', 'until must be after since.');
  if (q.until - q.since > MAX_SAVINGS_DAYS * DAY_MS)
    throw new AdminError(400, 'invalid_request', `The range spans at most ${MAX_SAVINGS_DAYS} days.`);
  g.ledger.flush();
  const rows = g.ledger.reports.savings({ since: q.since, until: q.until, tzOffsetMinutes: q.tz ?? 0, key: q.key });
  const days = rows.map((r) => ({ ...r, cacheHitRate: cacheHitRate(r) }));
  const perKey = new Map<string | null, typeof rows>();
  for (const r of rows) {
    const list = perKey.get(r.key);
    if (list) list.push(r);
    else perKey.set(r.key, [r]);
  }
  const keys = [...perKey]
    .map(([key, list]) => ({ key, ...figures(list) }))
    .sort((a, b) => b.savedMicro - a.savedMicro || (a.key ?? '').localeCompare(b.key ?? ''));
  return { since: q.since, until: q.until, days, keys, total: figures(rows) };
}
