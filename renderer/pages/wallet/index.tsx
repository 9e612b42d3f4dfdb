import { useState, type FormEvent } from 'react';
import { admin } from '../../lib/api.js';
import { Badge, ErrorNote, Field, PageHeader } from '../../components/ui.js';
import { tryParseUsd, usd } from '../../../gateway/contract/money.js';
import { dateTime } from '../../lib/format.js';
import { qk, useWallet, useWalletTransactions } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { LowBalanceNote } from '../../components/low-balance.js';
import { AdjustPanel } from './adjust.js';
import { Usd } from '../../components/money.js';

const PRESETS = [5, 20, 50, 100];

export function Wallet() {
  const wallet = useWallet();
  // Refreshed by the event stream when the wallet changes (live.ts).
  const history = useWalletTransactions();
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [invalid, setInvalid] = useState(false);
  const topup = useAction(
    (a: { micro: number; note: string }) =>
      admin.call('topUp', { body: { amountMicro: a.micro, ...(a.note ? { note: a.note } : {}) } }),
    [qk.wallet, qk.walletTransactions],
    (_w, a) => `Added ${usd(a.micro)} to the wallet.`,
  );

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const micro = tryParseUsd(amount);
    if (micro === undefined || micro <= 0) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    topup.mutate({ micro, note }, { onSuccess: () => (setAmount(''), setNote('')) });
  };

  const w = wallet.data;
  const settled = w ? w.balanceMicro - w.heldMicro : 0;
  return (
    <>
      <PageHeader
        title="Wallet"
        subtitle="Every request is billed here, at the catalogue's prices times the key's group multiplier."
      />
      <LowBalanceNote onWallet />
      <section className="stats" aria-label="Wallet">
        <div className="stat stat-hero">
          <span className="stat-label">Balance</span>
          <span className="stat-value" data-testid="balance">
            {w ? <Usd micro={w.balanceMicro} /> : '—'}
          </span>
          <span className="stat-note">{w ? `${usd(settled)} free after what is held` : ''}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Held</span>
          <span className="stat-value">{w ? <Usd micro={w.heldMicro} /> : '—'}</span>
          <span className="stat-note">reserved for requests in flight</span>
        </div>
        <div className="stat">
          <span className="stat-label">Settled spend</span>
          <span className="stat-value">{w ? <Usd micro={w.spentMicro} /> : '—'}</span>
          <span className="stat-note">billed for finished requests</span>
        </div>
        <div className="stat">
          <span className="stat-label">Topped up</span>
          <span className="stat-value">{w ? <Usd micro={w.topupsMicro} /> : '—'}</span>
          <span className="stat-note">
            {w && w.adjustmentsMicro !== 0
              ? `in all; adjustments ${usd(w.adjustmentsMicro)}`
              : 'in all, since the start'}
          </span>
        </div>
      </section>
      <section className="panel" aria-labelledby="topup-title">
        <div className="panel-head">
          <h2 id="topup-title">Top up</h2>
        </div>
        <form className="panel-pad topup-form" onSubmit={submit}>
          <Field label="Amount (USD)" htmlFor="topup-amount">
            <input
              id="topup-amount"
              inputMode="decimal"
              autoComplete="off"
              placeholder="10.00"
              value={amount}
              aria-invalid={invalid}
              onChange={(e) => setAmount(e.target.value)}
            />
          </Field>
          <div className="chips" role="group" aria-label="Quick amounts">
            {PRESETS.map((p) => (
              <button key={p} type="button" className="chip" onClick={() => setAmount(String(p))}>
                ${p}
              </button>
            ))}
          </div>
          <div className="field field-note">
            <label htmlFor="topup-note">Note</label>
            <input
              id="topup-note"
              maxLength={200}
              placeholder="optional, kept with the transaction"
              value={note}
              onChange={(e) => setNote(e.target.value)}
            />
          </div>
          <button type="submit" className="button button-primary" disabled={topup.isPending}>
            Add funds
          </button>
        </form>
        <p className="field-hint panel-pad-x">
          Amounts in dollars, up to six decimals (0.000001 is one micro-dollar, the ledger's unit).
        </p>
        {invalid ? (
          <p className="error-note panel-pad" role="alert">
            Enter an amount in dollars greater than 0, such as 10 or 2.50.
          </p>
        ) : null}
        <ErrorNote error={topup.error} />
      </section>
      <AdjustPanel />
      <section className="panel" aria-labelledby="history-title">
        <div className="panel-head">
          <h2 id="history-title">History</h2>
          <span className="muted">top-ups and adjustments, newest first</span>
        </div>
        {history.data && history.data.length > 0 ? (
          <table className="table table-compact">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {history.data.map((t) => (
                <tr key={t.id}>
                  <td className="mono muted">{dateTime(t.ts)}</td>
                  <td>
                    {t.kind === 'topup' ? (
                      'top-up'
                    ) : (
                      <Badge tone={t.amountMicro < 0 ? 'warn' : 'info'}>adjustment</Badge>
                    )}
                  </td>
                  <td className="num mono">
                    {t.amountMicro > 0 && t.kind === 'adjustment' ? '+' : ''}
                    <Usd micro={t.amountMicro} />
                  </td>
                  <td>{t.note ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted panel-pad">No top-ups yet.</p>
        )}
      </section>
    </>
  );
}
