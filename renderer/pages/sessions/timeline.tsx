/** A session's cumulative cost over time, as a step line: where the money went, and how fast. */
import type { SessionDetailView } from '../../lib/api.js';
import { usd } from '../../../gateway/contract/money.js';
import { dateTime } from '../../lib/format.js';

const W = 800;
const H = 140;
const PAD = 6;

export function CostTimeline({
  requests,
  capMicro,
}: {
  requests: SessionDetailView['requests'];
  capMicro: number | null;
}) {
  if (requests.length === 0) return null;
  const first = requests[0]!;
  const last = requests[requests.length - 1]!;
  const t0 = first.ts;
  const span = Math.max(1, last.ts - t0);
  const total = last.cumulativeMicro;
  const top = Math.max(1, total, capMicro !== null && capMicro <= total * 1.5 ? capMicro : 0);
  const x = (ts: number): number => PAD + ((ts - t0) / span) * (W - 2 * PAD);
  const y = (micro: number): number => H - PAD - (micro / top) * (H - 2 * PAD);
  let d = `M${x(t0).toFixed(1)},${y(0).toFixed(1)}`;
  for (const r of requests) d += ` H${x(r.ts).toFixed(1)} V${y(r.cumulativeMicro).toFixed(1)}`;
  const capY = capMicro !== null && capMicro <= top ? y(capMicro) : null;
  return (
    <figure className="session-timeline">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Cumulative cost from ${dateTime(t0)} to ${dateTime(last.ts)}: ${usd(total)} over ${requests.length} requests`}
      >
        {capY !== null ? <line className="timeline-cap" x1={0} x2={W} y1={capY} y2={capY} /> : null}
        <path className="timeline-area" d={`${d} H${x(last.ts).toFixed(1)} V${y(0).toFixed(1)} Z`} />
        <path className="timeline-line" d={d} />
      </svg>
      <figcaption className="muted">
        <span>{dateTime(t0)}</span>
        {capY !== null ? <span className="timeline-cap-label">cap {usd(capMicro!)}</span> : null}
        <span>
          {dateTime(last.ts)} · {usd(total)}
        </span>
      </figcaption>
    </figure>
  );
}
