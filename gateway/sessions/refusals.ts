/**
 * What a client is told when a guard stops it (docs/sessions.md, "Refusals"): one GatewayError per
 * guard, answered in the client's own error shape like every refusal. Each names the guard, the
 * amount and how to go on.
 *
 * The status decides whether the tool stops or retries. The money guards answer 402, as the
 * spec's insufficient balance does. The loop guard answers 400 (`invalid_request`): Claude Code,
 * Codex and Gemini CLI retry 429 and 5xx answers (Claude Code up to ten times, with backoff), so a
 * 429, 503 or 508 would let a looping agent knock on for minutes; a 400 ends the turn at once in
 * all three and shows the message (docs/sessions.md records what each one did).
 */
import { GatewayError } from '../core/errors.js';
import { usdExact } from '../contract/money.js';
import type { BudgetWindow } from '../contract/sessions.js';

export const LOOP_STATUS = 400;

function resumeHint(id: string): string {
  return `Resume it with "tollgate sessions resume ${id}" (add --add USD to raise its cap), or from the console's Sessions page.`;
}

export interface PauseFacts {
  sessionId: string;
  guard: string;
  reason: string;
}

/** The refusal of a request of a paused session: nothing was sent upstream. */
export function pausedSession(p: PauseFacts): GatewayError {
  const money = p.guard === 'session-cap';
  return new GatewayError(
    money ? 'insufficient_funds' : 'invalid_request',
    `Tollgate paused this session (${p.sessionId}): ${p.reason} Nothing was sent upstream. ${resumeHint(p.sessionId)} Other sessions of this key go on.`,
    { code: money ? 'session_cap_reached' : 'session_loop_detected', ...(money ? {} : { status: LOOP_STATUS }) },
  );
}

export function capReason(spentMicro: number, heldMicro: number, capMicro: number): string {
  const held = heldMicro > 0 ? ` with ${usdExact(heldMicro)} held for its requests in flight` : '';
  return `its session cap of ${usdExact(capMicro)} is reached (${usdExact(spentMicro)} spent${held}).`;
}

export function loopReason(call: string, times: number, limit: number): string {
  return `the same tool call, ${call}, came back with the same result ${times} times in a row (the key's loop limit is ${limit}).`;
}

export function bodyReason(times: number, seconds: number): string {
  return `the same request was sent ${times} times within ${seconds} s.`;
}

/** When a window frees room, for people: `2026-11-27 14:05 UTC (in 3 h 20 min)`. */
export function when(at: number, now: number): string {
  const mins = Math.max(1, Math.ceil((at - now) / 60_000));
  const h = Math.floor(mins / 60);
  const m = mins % 60;
  const rel = h > 0 ? `${h} h${m > 0 ? ` ${m} min` : ''}` : `${m} min`;
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC (in ${rel})`;
}

/** A key's budget window is spent: the key is refused until the window frees room. */
export function budgetRefusal(
  keyName: string,
  window: BudgetWindow,
  f: { spentMicro: number; heldMicro: number; budgetMicro: number; freesAt: number; now: number },
): GatewayError {
  const held = f.heldMicro > 0 ? ` and ${usdExact(f.heldMicro)} is held for requests in flight` : '';
  const retryAfter = Math.max(1, Math.ceil((f.freesAt - f.now) / 1000));
  const raise = `raise the budget with "tollgate keys update ${keyName} --budget ${window}=USD"`;
  return new GatewayError(
    'insufficient_funds',
    `Budget reached: the key "${keyName}" has spent ${usdExact(f.spentMicro)} of its ${window} budget of ${usdExact(f.budgetMicro)} in the last ${window}${held}. ` +
      (f.spentMicro < f.budgetMicro
        ? `A request in flight holds the rest: retry once it finishes, or ${raise}.`
        : `The window frees room at ${when(f.freesAt, f.now)}. Wait until then, or ${raise}.`),
    { code: 'budget_exceeded', retryAfter },
  );
}

/** The rest of a session's cap is held by its requests in flight: this one is refused, the session is not paused. */
export function capHeld(
  id: string,
  spentMicro: number,
  heldMicro: number,
  capMicro: number,
  needMicro: number,
): GatewayError {
  return new GatewayError(
    'insufficient_funds',
    `Session ${id} has spent ${usdExact(spentMicro)} of its ${usdExact(capMicro)} session cap and ${usdExact(heldMicro)} is held for its requests in flight; ` +
      `this request needs up to ${usdExact(needMicro)}. Retry once they finish, or raise the cap with "tollgate sessions resume ${id} --add USD".`,
    { code: 'session_cap_held' },
  );
}
