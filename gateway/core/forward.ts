import { GatewayError } from './errors.js';
import type { Outcome } from './exchange.js';
import type { Usage } from './usage.js';
import type { RouteContext } from './inbound.js';
import { ClientClosedError, TotalTimeoutError } from '../providers/http.js';

/**
 * Runs the upstream leg of an admitted exchange and settles it. Owns the abort signal: the
 * client hanging up aborts the upstream request, and so does the line's total timeout.
 * An exception before anything reached the client propagates (the caller answers with an error
 * and settles); whatever happens after is settled here from the returned outcome.
 */
export async function forward(
  ctx: RouteContext,
  run: (signal: AbortSignal) => Promise<Outcome>,
  countPrompt: () => Promise<Usage>,
): Promise<Outcome> {
  const { res, gateway, exchange } = ctx;
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort(new ClientClosedError());
  };
  res.on('close', onClose);
  const totalMs = gateway.timeoutsFor(exchange.admission!.line).totalMs;
  const timer = setTimeout(() => controller.abort(new TotalTimeoutError(totalMs)), totalMs);
  try {
    const outcome = await run(controller.signal);
    gateway.settle(exchange, outcome);
    return outcome;
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'client_closed') {
      // The client left before any answer reached it. The upstream had the prompt by then and
      // upstreams bill a prompt they have read, so the prompt is billed (as counted here).
      const outcome: Outcome = { status: 499, usage: await countPrompt(), usageEstimated: true, error: err };
      gateway.settle(exchange, outcome);
      return outcome;
    }
    throw err;
  } finally {
    clearTimeout(timer);
    res.off('close', onClose);
  }
}
