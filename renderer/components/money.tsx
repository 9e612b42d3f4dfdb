/**
 * Money on screen, by the contract's one rule (gateway/contract/money.ts), the same as the tray and
 * the CLI: balances and totals to the cent with the exact amount on hover, what one request cost
 * at a fixed six decimals; both in tabular figures so that columns of amounts line up.
 */
import { usd, usdCost, usdExact } from '../../gateway/contract/money.js';

/** A balance, top-up or total: $1,234.50, and $1234.503217 on hover. */
export function Usd({ micro, testId }: { micro: number; testId?: string }) {
  return (
    <span className="money" title={usdExact(micro)} data-testid={testId}>
      {usd(micro)}
    </span>
  );
}

/** What one request cost, to the micro-dollar: $0.000043. */
export function UsdCost({ micro, testId }: { micro: number; testId?: string }) {
  return (
    <span className="money" data-testid={testId}>
      {usdCost(micro)}
    </span>
  );
}
