import type { Billing } from '../billing/billing.js';
import { asGatewayError, GatewayError } from '../core/errors.js';
import type { Usage } from '../core/usage.js';
import { attemptController, type Attempt, type CallSignal } from '../upstream/client.js';
import { ClientClosedError, TotalTimeoutError } from '../upstream/errors.js';
import type { Exchange, Outcome } from './exchange.js';
import type { Verdict } from '../routing/health.js';
import { upstreamModelId } from '../routing/lines.js';
import { LineAffinity } from '../routing/affinity.js';
import type { LinePool } from './ports.js';
import type { ClientResponse } from './respond.js';
import { settle, settleFailure } from './settle.js';

export interface ForwardDeps {
  lines: LinePool;
  /** Writes the exchange's ledger row (settle.ts); false when it could not. */
  billing: Pick<Billing, 'settle'>;
}

/** Every line serving the model is at its requests-per-minute limit or on hold after an upstream 429. */
function rateLimited(modelId: string, waitMs: number): GatewayError {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return new GatewayError(
    'rate_limit',
    `Rate limit reached: every line serving "${modelId}" is at its requests-per-minute limit or on hold after an upstream 429. Retry in ${retryAfter} s.`,
    {
      code: 'line_rate_limited',
      retryAfter,
    },
  );
}

/**
 * Errors that say something about the line rather than the request: worth another line. An
 * upstream 4xx about the request itself is not, nor is Tollgate's own failure (a bug is not fixed
 * by sending the request elsewhere, and should surface as the 500 it is).
 */
function lineFault(err: GatewayError): boolean {
  // Tollgate's own failures (a ledger row it could not write) say nothing about the line, and
  // another line must not be asked: the first one's answer was already produced.
  if (err.kind === 'internal') return false;
  return err.status >= 500 || err.code === 'upstream_rate_limited';
}

/**
 * What a failed attempt says about the line's upstream, for its breaker: only the upstream's own
 * failures count, and only they carry an `upstream_` code (upstream/errors.ts and the formats'
 * readers make them). Tollgate's own errors, the client leaving before an answer and the line's
 * setup (a missing key) say nothing; an upstream that answered with a 4xx or a 429 is up.
 */
function verdictOf(err: GatewayError): Verdict {
  if (!err.code.startsWith('upstream_')) return 'unknown';
  return err.status >= 500 ? 'down' : 'up';
}

/**
 * Runs the upstream leg of an admitted exchange and settles it. Tries the admission's lines in
 * order: on a connect error, timeout, 5xx or 429 before the first byte reached the client, the
 * next line gets the request; after that, the stream ends with the format's error event (inside
 * `run`). Owns the abort signals: the client hanging up aborts the upstream request, and so does
 * the line's total timeout. An exception before anything reached the client propagates (the
 * caller answers with an error and settles); whatever happens after is settled here.
 */
export async function forward(
  deps: ForwardDeps,
  exchange: Exchange,
  res: ClientResponse,
  run: (signal: CallSignal) => Promise<Outcome>,
  countPrompt: () => Promise<Usage>,
): Promise<Outcome> {
  const { lines } = deps;
  const health = lines.health;
  const admission = exchange.admission!;
  // The client hanging up aborts the attempt under way (one AbortController per attempt, none for the client).
  let gone: ClientClosedError | undefined;
  let current: Attempt | undefined;
  const onClose = (): void => {
    if (res.writableFinished) return;
    gone ??= new ClientClosedError();
    current?.abort(gone);
  };
  res.on('close', onClose);
  let last: GatewayError | undefined;
  let rpmWait = Infinity;
  let coolWait = Infinity;
  // The conversation's last line first, while it is healthy: its upstream holds the prompt cache.
  const scope = LineAffinity.scope(admission.keyId, admission.model.id, exchange.sessionId);
  const candidates = lines.affinity.prefer(scope, admission.candidates, Date.now());
  try {
    for (const line of candidates) {
      const now = Date.now();
      const limited = health.rateLimitWaitMs(line.id, now);
      if (limited > 0) {
        rpmWait = Math.min(rpmWait, limited);
        continue;
      }
      const hold = health.waitMs(line.id, now);
      const use = hold > 0 ? false : health.tryUse(line.id, now);
      if (!use) {
        coolWait = Math.min(coolWait, hold || 1000);
        continue;
      }
      const wait = lines.take(line, now);
      if (wait > 0) {
        health.release(line.id, use);
        rpmWait = Math.min(rpmWait, wait);
        continue;
      }
      admission.line = line;
      admission.upstreamModel = upstreamModelId(line, admission.model.id);
      exchange.attempts++;
      // The upstream client's first-byte and idle timers abort this same controller (no second one per request).
      const attempt = attemptController();
      current = attempt;
      if (gone) attempt.abort(gone);
      const totalMs = lines.timeoutsFor(line).totalMs;
      const timer = setTimeout(() => attempt.abort(new TotalTimeoutError(totalMs)), totalMs);
      exchange.settleHook = (o) => settle(deps.billing, exchange, o);
      // Every attempt ends with a verdict on the line, so a probe always ends (finally, below).
      let verdict: Verdict = 'unknown';
      try {
        const outcome = await run(attempt.signal);
        // An answer came; it ended badly only if the upstream broke it (an in-band error, a drop).
        verdict = outcome.error && verdictOf(outcome.error) === 'down' ? 'down' : 'up';
        if (verdict === 'up') lines.affinity.record(scope, line.id, Date.now());
        // Settled already before the answer's end (settleBeforeEnd) on every path that answered: no promise to wait for.
        if (!exchange.settled) await settle(deps.billing, exchange, outcome);
        return outcome;
      } catch (err) {
        const failure = asGatewayError(err);
        verdict = verdictOf(failure);
        if (failure.code === 'client_closed') {
          // The client left before any answer reached it. The upstream had the prompt by then and
          // upstreams bill a prompt they have read, so the prompt is billed (as counted here).
          const usage = await countPrompt();
          await settleFailure(deps.billing, exchange, failure, usage);
          return { status: failure.status, usage, usageEstimated: true, error: failure };
        }
        if (!lineFault(failure)) throw failure;
        if (failure.code === 'upstream_rate_limited') health.rateLimited(line.id, Date.now(), failure.retryAfter ?? 1);
        if (res.headersSent) throw failure;
        exchange.notes.push(`line "${line.name}" failed (${failure.status} ${failure.code})`);
        last = failure;
      } finally {
        health.record(line.id, verdict, Date.now(), use);
        exchange.settleHook = null;
        clearTimeout(timer);
        current = undefined;
      }
    }
  } finally {
    res.off('close', onClose);
  }
  if (last) throw last;
  if (rpmWait !== Infinity) throw rateLimited(admission.model.id, rpmWait);
  const retryAfter = Math.max(1, Math.ceil(coolWait / 1000));
  throw new GatewayError(
    'upstream_unavailable',
    `Upstream unavailable: every line serving "${admission.model.id}" failed recently and is cooling down, or is on hold after an upstream 429. Retry in ${retryAfter} s.`,
    { code: 'lines_cooling_down', retryAfter },
  );
}
