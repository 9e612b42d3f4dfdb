/**
 * A line's health as a person reads it: "untested" until a request or a test has gone through it,
 * a failed test marks it, a breaker at rest says after how many failures and counts down to the
 * retry with the last error beside it, and the last day's success rate, median latency and request
 * count (GET /api/lines/usage, computed in SQL over the ledger) sit next to it.
 */
import { useEffect, useState } from 'react';
import type { LineUsageView } from '../../../gateway/contract/admin/index.js';
import type { LineTestView, LineView } from '../../lib/api.js';
import { Badge } from '../../components/ui.js';
import { ms } from '../../lib/format.js';

/** Seconds left of a wait the server measured at `at` (epoch ms), ticking once a second. */
function useSecondsLeft(waitMs: number, at: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (waitMs <= 0) return;
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, [waitMs]);
  return Math.max(0, Math.ceil((waitMs - (now - at)) / 1000));
}

export function Health({
  l,
  usage,
  test,
  at,
}: {
  l: LineView;
  usage: LineUsageView | undefined;
  test: LineTestView | undefined;
  /** When the line's figures were read (the query's time). */
  at: number;
}) {
  const { state, failures, waitMs } = l.health;
  const left = useSecondsLeft(waitMs, at);
  // This console's own Test result until the lines are read again; then the gateway's record of the
  // line's last Test, which a reload or another window sees too.
  const lastTest = test ?? l.health.lastTest ?? undefined;
  const lastError = usage?.lastError?.message ?? (lastTest && !lastTest.ok ? lastTest.message : null);
  let badge;
  if (!l.enabled) badge = <Badge tone="muted">off</Badge>;
  else if (state === 'open')
    badge = (
      <Badge tone="bad">
        resting after {failures} failure{failures === 1 ? '' : 's'}, retrying in {left} s
      </Badge>
    );
  else if (state === 'half-open') badge = <Badge tone="warn">retrying now</Badge>;
  else if (waitMs > 0) badge = <Badge tone="warn">rate-limited, retrying in {left} s</Badge>;
  else if (lastTest && !lastTest.ok) badge = <Badge tone="bad">test failed</Badge>;
  else if (!usage && !lastTest) badge = <Badge tone="muted">untested</Badge>;
  else if (failures > 0) badge = <Badge tone="warn">{failures} recent failures</Badge>;
  else badge = <Badge tone="ok">healthy</Badge>;
  const showError = lastError && (state !== 'closed' || (lastTest && !lastTest.ok) || failures > 0);
  return (
    <div className="line-health" data-testid="line-health">
      {badge}
      {showError ? (
        <span className="line-error muted" title={lastError}>
          {lastError}
        </span>
      ) : null}
    </div>
  );
}

/** The last day's figures: success rate, median latency, requests. */
export function DayFigures({ usage }: { usage: LineUsageView | undefined }) {
  if (!usage || usage.requests === 0) return <span className="muted">no requests</span>;
  const rate = ((usage.requests - usage.errors) / usage.requests) * 100;
  return (
    <span className="line-figures mono" data-testid="line-day">
      <span title="requests answered below 400, last 24 hours" className={rate < 95 ? 'bad-text' : ''}>
        {rate >= 99.95 ? '100' : rate.toFixed(1)}% ok
      </span>
      {/* One figure a line on screen; read (and copied) as one sentence. */}
      <span className="muted">
        <span className="sr-only"> · </span>p50 {ms(usage.p50LatencyMs)}
      </span>
      <span className="muted">
        <span className="sr-only"> · </span>
        {usage.requests.toLocaleString('en-US')} req
      </span>
    </span>
  );
}
