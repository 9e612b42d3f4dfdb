/**
 * Agent sessions while the gateway runs (docs/sessions.md): which session each request belongs
 * to, and the guards that pause a session (its cap, the loop guard) or refuse a key (its budget
 * windows), with the warnings before them. The ledger keeps each session's totals and pauses
 * (store/ledger-sessions.ts); this keeps what the guards need in memory: what each session has
 * spent and holds, its last tool rounds and bodies, and each key's spend per window.
 *
 * Everything here is synchronous: on Node's one thread, a check and the hold that follows it
 * (relay/model-route.ts) cannot be split by another request, so parallel sub-agents cannot
 * together pass a cap.
 */
import { randomBytes } from 'node:crypto';
import type { FormatId } from '../contract/formats.js';
import {
  BUDGET_WINDOWS,
  DEFAULT_LOOP_LIMIT,
  LOOP_BODY_REPEATS,
  LOOP_BODY_WINDOW_MS,
  SESSION_IDLE_MS,
  WARN_PERCENT,
  WINDOW_IDS,
  type BudgetWindow,
  type Guard,
  type ToolId,
} from '../contract/sessions.js';
import { usdExact } from '../contract/money.js';
import type { RequestRow } from '../store/ledger.js';
import { ASSIGNED_PREFIX, type LedgerSessions } from '../store/ledger-sessions.js';
import type { KeyRecord } from '../store/types.js';
import { identify, type Headers } from './identify.js';
import { bodyReason, budgetRefusal, capHeld, capReason, loopReason, pausedSession } from './refusals.js';
import { lastToolRound } from './tool-turn.js';
import { RollingSpend } from './windows.js';

/** Which session, agent, tool and project a request is counted under; `id` is what other parts key by. */
export interface Attribution {
  id: string;
  agent: string | null;
  tool: ToolId;
  project: string;
  /**
   * A coding agent's session, or one the client named: the repeated-body guard watches these.
   * A script's traffic grouped by idle gap (an SDK or curl sending no session id) may send the same
   * body on purpose (a benchmark, a batch of identical prompts), so that rule leaves it alone.
   */
  agentic: boolean;
}

/** The coding agents, whose sessions the repeated-body guard watches even when they name none (Gemini CLI). */
const AGENT_TOOLS: ReadonlySet<ToolId> = new Set(['claude-code', 'codex', 'gemini-cli', 'opencode']);

export interface Pause {
  guard: Guard;
  reason: string;
  /** The tool call that repeated, for the loop guard. */
  call: string | null;
  at: number;
}

/** Something people should hear about: shown by the console and the tray (the `session` event). */
export interface SessionNotice {
  kind: 'warning' | 'paused' | 'resumed';
  guard: Guard | null;
  message: string;
}

export interface SessionChange {
  sessionId: string;
  notice: SessionNotice | null;
}

/** What the guards know of one session. */
interface Live {
  id: string;
  keyId: string;
  keyName: string;
  spentMicro: number;
  heldMicro: number;
  /** A request admitted beyond the cap's room (at most one at a time): the bound on any overspend. */
  overhang: string | null;
  addedMicro: number;
  pause: Pause | null;
  warned: boolean;
  /** Per agent ('' for the main one): the last tool round and how many times in a row it came. */
  rounds: Map<string, { signature: string; count: number }>;
  /** Bodies of the last minute (kept to compare; at most LOOP_BODY_REPEATS + 1). */
  bodies: { ts: number; body: string }[];
  lastTs: number;
}

/** One key's spend over its windows, and what its requests hold. */
interface KeyState {
  spend: RollingSpend;
  heldMicro: number;
  overhang: string | null;
  warned: Set<BudgetWindow>;
}

interface Hold {
  session: Live;
  key: KeyState;
  amountMicro: number;
}

/** What a limit check decided, for the hold that follows it. */
interface Decision {
  session: Live;
  key: KeyState;
  sessionOverhang: boolean;
  keyOverhang: boolean;
}

export type SessionStore = Pick<LedgerSessions, 'get' | 'state' | 'setState' | 'latestAssignedOf' | 'keyMinutes'>;

/** What admission asks of the limit (billing/billing.ts SpendLimit has the same shape). */
interface SpendLimit {
  freeMicro: number;
  check(amountMicro: number): void;
}

/** The limit of a key with neither a session cap nor a budget window. */
const UNLIMITED: SpendLimit = { freeMicro: Infinity, check: () => undefined };

function hasBudget(budgets: Partial<Record<BudgetWindow, number>>): boolean {
  for (const w of WINDOW_IDS) if (budgets[w] !== undefined) return true;
  return false;
}

/** Sessions idle this long leave memory (their totals are in the ledger). */
const FORGET_MS = 2 * SESSION_IDLE_MS;
const LONGEST_WINDOW_MS = Math.max(...Object.values(BUDGET_WINDOWS));

export class Sessions {
  private readonly live = new Map<string, Live>();
  private readonly keys = new Map<string, KeyState>();
  private readonly assigned = new Map<string, { id: string; lastTs: number }>();
  private readonly holds = new Map<string, Hold>();
  private readonly listeners = new Set<(c: SessionChange) => void>();
  private lastDecision: Decision | null = null;
  private sweptAt = 0;

  constructor(
    private readonly store: SessionStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Calls `fn` on every change (a request settled, a warning, a pause, a resume); returns how to stop. */
  onChange(fn: (c: SessionChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The session, agent, tool and project of a request, from its headers and key. */
  attribute(key: KeyRecord, headers: Headers): Attribution {
    const now = this.now();
    const who = identify(headers);
    const project = who.project ?? key.project ?? key.name;
    if (who.sessionId !== null) return { id: who.sessionId, agent: who.agent, tool: who.tool, project, agentic: true };
    // No id from the client: the key's session of this tool goes on until it has been idle 30 minutes.
    const slot = `${key.id}\u0000${who.tool}`;
    let current = this.assigned.get(slot);
    if (!current) {
      const rec = this.store.latestAssignedOf(key.id, who.tool);
      if (rec) current = { id: rec.id, lastTs: rec.last_ts };
    }
    if (!current || now - current.lastTs > SESSION_IDLE_MS)
      current = { id: `${ASSIGNED_PREFIX}${randomBytes(6).toString('hex')}`, lastTs: now };
    current.lastTs = now;
    this.assigned.set(slot, current);
    return { id: current.id, agent: who.agent, tool: who.tool, project, agentic: AGENT_TOOLS.has(who.tool) };
  }

  /**
   * Before admission: refuses a request of a paused session, and pauses a session whose agent
   * repeats itself (the same tool round K times in a row, or the same body too often). Throws
   * the refusal; nothing has been held or sent.
   */
  check(a: Attribution, key: KeyRecord, format: FormatId, body: unknown, rawBody: string): void {
    const s = this.session(a.id, key);
    const now = this.now();
    s.lastTs = now;
    if (s.pause) throw pausedSession({ sessionId: s.id, guard: s.pause.guard, reason: s.pause.reason });
    const limit = key.loopLimit ?? DEFAULT_LOOP_LIMIT;
    if (limit > 0) {
      const round = lastToolRound(format, body);
      if (round) {
        const agent = a.agent ?? '';
        const last = s.rounds.get(agent);
        const count = last?.signature === round.signature ? last.count + 1 : 1;
        s.rounds.set(agent, { signature: round.signature, count });
        if (count >= limit) this.pauseAndRefuse(s, 'loop', loopReason(round.call, count, limit), round.call);
      }
    }
    // A loop limit of 0 turns the loop guard off, both of its rules.
    if (limit === 0 || !a.agentic) return;
    // The bodies of the last minute, oldest first: the older ones leave from the front.
    let old = 0;
    while (old < s.bodies.length && now - s.bodies[old]!.ts >= LOOP_BODY_WINDOW_MS) old++;
    if (old > 0) s.bodies.splice(0, old);
    // Compared by length first, so an honest session (whose bodies grow) compares nothing.
    let same = 0;
    for (const b of s.bodies) if (b.body.length === rawBody.length && b.body === rawBody) same++;
    if (same + 1 > LOOP_BODY_REPEATS)
      this.pauseAndRefuse(s, 'repeated-body', bodyReason(same + 1, LOOP_BODY_WINDOW_MS / 1000), null);
    s.bodies.push({ ts: now, body: rawBody });
    if (s.bodies.length > LOOP_BODY_REPEATS) s.bodies.shift();
  }

  /**
   * The session's cap and the key's budget windows as a limit for admission (billing/billing.ts
   * SpendLimit). A request may hold what fits; one request at a time may go beyond the room left
   * (so a cap smaller than one reservation still lets a session work), which bounds any overspend
   * by that one reservation. A session that has spent its cap is paused; one whose remaining room
   * is held by its requests in flight has this request refused, and goes on once they settle.
   */
  limit(a: Attribution, key: KeyRecord): SpendLimit {
    this.lastDecision = null;
    const cap = key.sessionCapMicro ?? null;
    const budgets = key.budgets ?? {};
    // A key without a cap or a budget has nothing to check: no room to work out, no closures to make.
    if (cap === null && !hasBudget(budgets)) return UNLIMITED;
    const s = this.session(a.id, key);
    const k = this.keyState(key);
    const now = this.now();
    const roomOf = (): number => {
      let free = cap === null ? Infinity : cap + s.addedMicro - s.spentMicro - s.heldMicro;
      for (const w of WINDOW_IDS) {
        const b = budgets[w];
        if (b !== undefined) free = Math.min(free, b - k.spend.spent(w, now) - k.heldMicro);
      }
      return Math.max(0, free);
    };
    return {
      freeMicro: roomOf(),
      check: (amountMicro: number): void => {
        const d: Decision = { session: s, key: k, sessionOverhang: false, keyOverhang: false };
        if (cap !== null) {
          const capMicro = cap + s.addedMicro;
          const room = capMicro - s.spentMicro - s.heldMicro;
          if (s.spentMicro >= capMicro)
            this.pauseAndRefuse(s, 'session-cap', capReason(s.spentMicro, s.heldMicro, capMicro), null);
          if (amountMicro > room) {
            // The rest of the cap is held by requests in flight (parallel sub-agents): refused, not paused.
            if (room <= 0 || s.overhang !== null) throw capHeld(s.id, s.spentMicro, s.heldMicro, capMicro, amountMicro);
            d.sessionOverhang = true;
          }
        }
        for (const w of WINDOW_IDS) {
          const budget = budgets[w];
          if (budget === undefined) continue;
          const spent = k.spend.spent(w, now);
          const room = budget - spent - k.heldMicro;
          if (amountMicro <= room) continue;
          if (room > 0 && k.overhang === null) {
            d.keyOverhang = true;
            continue;
          }
          // A request is let in whenever the window has any room (one at a time beyond it): it frees when spend drops below the budget.
          throw budgetRefusal(key.name, w, {
            spentMicro: spent,
            heldMicro: k.heldMicro,
            budgetMicro: budget,
            freesAt: k.spend.freesAt(w, budget - 1, 0, now),
            now,
          });
        }
        this.lastDecision = d;
      },
    };
  }

  /** After admission: the request holds its reservation against its session and key until it settles. */
  hold(a: Attribution, key: KeyRecord, requestId: string, amountMicro: number): void {
    const s = this.session(a.id, key);
    const k = this.keyState(key);
    const d = this.lastDecision?.session === s ? this.lastDecision : null;
    this.lastDecision = null;
    s.heldMicro += amountMicro;
    k.heldMicro += amountMicro;
    if (d?.sessionOverhang) s.overhang = requestId;
    if (d?.keyOverhang) k.overhang = requestId;
    this.holds.set(requestId, { session: s, key: k, amountMicro });
  }

  /** A request's ledger row: its hold released, its cost counted, the warnings and the cap's pause. */
  settled(row: RequestRow, key: KeyRecord | undefined): void {
    const h = this.holds.get(row.requestId);
    if (h) {
      this.holds.delete(row.requestId);
      h.session.heldMicro -= h.amountMicro;
      h.key.heldMicro -= h.amountMicro;
      if (h.session.overhang === row.requestId) h.session.overhang = null;
      if (h.key.overhang === row.requestId) h.key.overhang = null;
    }
    if (row.session === null) return;
    const s = h?.session ?? this.live.get(row.session);
    if (s) s.spentMicro += row.costMicro;
    const k = h?.key ?? (row.keyId !== null ? this.keys.get(row.keyId) : undefined);
    k?.spend.add(row.ts, row.costMicro);
    let notice: SessionNotice | null = null;
    if (s && key) notice = this.capNotice(s, key) ?? (k ? this.windowNotice(k, key) : null);
    this.emit({ sessionId: row.session, notice });
  }

  /** Unpauses a session, raising its cap by `addMicro`. Returns false for a session the ledger has never seen. */
  resume(id: string, addMicro: number, key: KeyRecord | undefined): boolean {
    const rec = this.store.get(id);
    const s = this.live.get(id);
    if (!rec && !s) return false;
    const state = this.store.state(id);
    const added = (s?.addedMicro ?? state?.added_micro ?? 0) + addMicro;
    this.store.setState({
      id,
      added_micro: added,
      paused_guard: null,
      paused_reason: null,
      paused_call: null,
      paused_at: null,
    });
    if (s) {
      s.addedMicro = added;
      s.pause = null;
      s.warned = false;
      s.rounds.clear();
      s.bodies = [];
    }
    const cap = key?.sessionCapMicro ?? null;
    const raised = addMicro > 0 && cap !== null ? ` Its cap is now ${usdExact(cap + added)}.` : '';
    this.emit({ sessionId: id, notice: { kind: 'resumed', guard: null, message: `Session ${id} resumed.${raised}` } });
    return true;
  }

  /** What the guards hold of a session now, for its view: its pause, what a resume added, what it holds. */
  runtime(id: string): { pause: Pause | null; addedMicro: number; heldMicro: number } {
    const s = this.live.get(id);
    if (s) return { pause: s.pause, addedMicro: s.addedMicro, heldMicro: s.heldMicro };
    const st = this.store.state(id);
    return {
      pause:
        st?.paused_guard != null
          ? {
              guard: st.paused_guard as Guard,
              reason: st.paused_reason ?? '',
              call: st.paused_call,
              at: st.paused_at ?? 0,
            }
          : null,
      addedMicro: st?.added_micro ?? 0,
      heldMicro: 0,
    };
  }

  private pauseAndRefuse(s: Live, guard: Guard, reason: string, call: string | null): never {
    s.pause = { guard, reason, call, at: this.now() };
    this.store.setState({
      id: s.id,
      added_micro: s.addedMicro,
      paused_guard: guard,
      paused_reason: reason,
      paused_call: call,
      paused_at: s.pause.at,
    });
    this.emit({
      sessionId: s.id,
      notice: { kind: 'paused', guard, message: `Session ${s.id} (key "${s.keyName}") paused: ${reason}` },
    });
    throw pausedSession({ sessionId: s.id, guard, reason });
  }

  /** The 80 % warning of the cap, once per session; the pause itself once the cap is spent. */
  private capNotice(s: Live, key: KeyRecord): SessionNotice | null {
    const base = key.sessionCapMicro ?? null;
    if (base === null || s.pause) return null;
    const cap = base + s.addedMicro;
    if (s.spentMicro >= cap) {
      const reason = capReason(s.spentMicro, s.heldMicro, cap);
      s.pause = { guard: 'session-cap', reason, call: null, at: this.now() };
      this.store.setState({
        id: s.id,
        added_micro: s.addedMicro,
        paused_guard: 'session-cap',
        paused_reason: reason,
        paused_call: null,
        paused_at: s.pause.at,
      });
      return {
        kind: 'paused',
        guard: 'session-cap',
        message: `Session ${s.id} (key "${s.keyName}") paused: ${reason}`,
      };
    }
    if (!s.warned && s.spentMicro * 100 >= cap * WARN_PERCENT) {
      s.warned = true;
      return {
        kind: 'warning',
        guard: 'session-cap',
        message: `Session ${s.id} (key "${s.keyName}") has spent ${usdExact(s.spentMicro)}, ${WARN_PERCENT} % of its ${usdExact(cap)} cap.`,
      };
    }
    return null;
  }

  /** The 80 % warning of a budget window, once until the window drops below 80 % again. */
  private windowNotice(k: KeyState, key: KeyRecord): SessionNotice | null {
    const now = this.now();
    for (const w of WINDOW_IDS) {
      const budget = key.budgets?.[w];
      if (budget === undefined) continue;
      const spent = k.spend.spent(w, now);
      const over = spent * 100 >= budget * WARN_PERCENT;
      if (!over) k.warned.delete(w);
      else if (!k.warned.has(w)) {
        k.warned.add(w);
        return {
          kind: 'warning',
          guard: 'budget',
          message: `Key "${key.name}" has spent ${usdExact(spent)} of its ${w} budget of ${usdExact(budget)} (${Math.floor((spent * 100) / budget)} %).`,
        };
      }
    }
    return null;
  }

  private session(id: string, key: KeyRecord): Live {
    let s = this.live.get(id);
    if (s) return s;
    this.sweep();
    const rec = this.store.get(id);
    const st = this.store.state(id);
    s = {
      id,
      keyId: key.id,
      keyName: key.name,
      spentMicro: rec?.cost_micro ?? 0,
      heldMicro: 0,
      overhang: null,
      addedMicro: st?.added_micro ?? 0,
      pause:
        st?.paused_guard != null
          ? {
              guard: st.paused_guard as Guard,
              reason: st.paused_reason ?? '',
              call: st.paused_call,
              at: st.paused_at ?? 0,
            }
          : null,
      warned: false,
      rounds: new Map(),
      bodies: [],
      lastTs: this.now(),
    };
    const cap = key.sessionCapMicro ?? null;
    if (cap !== null && s.spentMicro * 100 >= (cap + s.addedMicro) * WARN_PERCENT) s.warned = true;
    this.live.set(id, s);
    return s;
  }

  private keyState(key: KeyRecord): KeyState {
    let k = this.keys.get(key.id);
    if (!k) {
      k = {
        spend: new RollingSpend(this.store.keyMinutes(key.id, this.now() - LONGEST_WINDOW_MS)),
        heldMicro: 0,
        overhang: null,
        warned: new Set(),
      };
      this.keys.set(key.id, k);
    }
    return k;
  }

  /** Drops sessions idle for an hour that hold nothing (at most once a minute). */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [id, s] of this.live) if (now - s.lastTs > FORGET_MS && s.heldMicro === 0) this.live.delete(id);
    for (const [slot, a] of this.assigned) if (now - a.lastTs > FORGET_MS) this.assigned.delete(slot);
  }

  private emit(c: SessionChange): void {
    for (const fn of this.listeners) fn(c);
  }
}
