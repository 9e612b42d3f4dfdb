import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { StatsTotalView, WalletView } from '../../../gateway/contract/admin/index.js';
import { usd, usdExact } from '../../../gateway/contract/money.js';
import { Usd } from '../../components/money.js';
import { Skeleton } from '../../components/skeleton.js';
import { cacheRate, inputAll, pct, spendText } from './metrics.js';
import { logLink } from './log-link.js';
import type { Window } from './range.js';

function Card({
  to,
  label,
  value,
  note,
  none,
}: {
  to: string;
  label: string;
  value: ReactNode;
  note: ReactNode;
  /** No range to show (a custom span not valid): a dash, not a skeleton that never resolves. */
  none?: boolean;
}) {
  return (
    <Link to={to} className="stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value">{none ? '—' : (value ?? <Skeleton width="96px" height="26px" />)}</span>
      <span className="stat-note">{none ? '' : (note ?? <Skeleton width="70%" />)}</span>
    </Link>
  );
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The balance and what the range adds up to: spend, requests, failures and cache hits, each a link
 * to the usage log filtered to the same range (failures to the failed requests of it). Skeletons
 * stand in for figures on their way, so loading never reads as "nothing".
 */
export function StatCards({
  wallet,
  total,
  window: w,
}: {
  wallet: WalletView | undefined;
  total: StatsTotalView | undefined;
  window: Window | undefined;
}) {
  const span = w ? { since: w.since, until: w.until } : undefined;
  const range = w?.label ?? 'range';
  const log = span ? logLink(span) : '/logs';
  const t = total;
  const rate = t ? cacheRate(t) : undefined;
  return (
    <section
      className="stats stats-5"
      aria-label="Summary"
      aria-busy={(w !== undefined && t === undefined) || wallet === undefined}
    >
      <Card
        to="/wallet"
        label="Balance"
        value={wallet ? <Usd micro={wallet.balanceMicro} /> : undefined}
        note={wallet ? `${usd(wallet.heldMicro)} held for requests in flight` : undefined}
      />
      <Card
        none={w === undefined}
        to={log}
        label={`Spend, ${range}`}
        value={
          t ? (
            <span className="money" title={usdExact(t.costMicro)}>
              {spendText(t.costMicro)}
            </span>
          ) : undefined
        }
        note={t ? `${count(t.requests)} requests` : undefined}
      />
      <Card
        none={w === undefined}
        to={log}
        label="Tokens"
        value={t ? count(inputAll(t) + t.outputTokens) : undefined}
        note={t ? `${count(inputAll(t))} in · ${count(t.outputTokens)} out` : undefined}
      />
      <Card
        none={w === undefined}
        to={span ? logLink({ ...span, status: 'error' }) : '/logs?status=error'}
        label="Errors"
        value={t ? (t.requests === 0 ? '—' : pct(t.errors / t.requests)) : undefined}
        note={t ? `${count(t.errors)} failed of ${count(t.requests)}` : undefined}
      />
      <Card
        none={w === undefined}
        to={log}
        label="Cache hits"
        value={t ? pct(rate) : undefined}
        note={t ? `${count(t.cacheReadTokens)} of ${count(inputAll(t))} input tokens from cache` : undefined}
      />
    </section>
  );
}
