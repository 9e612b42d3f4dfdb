import { usd } from '../../../gateway/contract/money.js';
import { date } from '../../lib/format.js';

const DAY_MS = 86_400_000;
const W = 64;
const H = 20;

/**
 * A key's spend per day as small bars, oldest on the left, today on the right, scaled to its own
 * busiest day. Each bar names its day and amount on hover; the whole says the total to a screen reader.
 */
export function Sparkline({ daily, since, total }: { daily: number[]; since: number; total: number }) {
  const max = Math.max(...daily, 0);
  const step = W / daily.length;
  return (
    <svg
      className="sparkline"
      width={W}
      height={H}
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={`${usd(total)} over the last ${daily.length} days`}
    >
      <line className="sparkline-base" x1={0} x2={W} y1={H - 0.5} y2={H - 0.5} />
      {daily.map((micro, i) => {
        if (micro === 0 || max === 0) return null;
        // A day with any spend stays visible at one pixel.
        const h = Math.max(1, Math.round((micro / max) * (H - 2)));
        return (
          <rect key={i} className="sparkline-bar" x={i * step + 0.5} y={H - h} width={Math.max(1, step - 1)} height={h}>
            <title>{`${date(since + i * DAY_MS + DAY_MS / 2)}: ${usd(micro)}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
