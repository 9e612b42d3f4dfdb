import { Link } from 'react-router';
import { usd } from '../../gateway/contract/money.js';
import { useSettings, useWallet } from '../lib/queries.js';

/** Says so when the balance is below the low-balance setting; nothing otherwise. */
export function LowBalanceNote({ onWallet }: { onWallet?: boolean }) {
  const wallet = useWallet().data;
  const settings = useSettings().data;
  const threshold = settings?.lowBalanceMicro ?? null;
  if (!wallet || threshold === null || wallet.balanceMicro >= threshold) return null;
  return (
    <p className="warning low-balance" role="status" data-testid="low-balance">
      The balance, {usd(wallet.balanceMicro)}, is below {usd(threshold)}: requests get 402 once it runs out.{' '}
      {onWallet ? 'Top up below, or change the threshold in ' : 'Top up on the '}
      {onWallet ? (
        <Link to="/settings" className="link">
          Settings
        </Link>
      ) : (
        <Link to="/wallet" className="link">
          Wallet page
        </Link>
      )}
      .
    </p>
  );
}
