import { useState, type FormEvent } from 'react';
import { admin } from '../../lib/api.js';
import { Badge, ErrorNote, Field, PageHeader } from '../../components/ui.js';
import { tryParseUsd, usd } from '../../../gateway/contract/money.js';
import { dateTime } from '../../lib/format.js';
import { qk, useWallet, useWalletTransactions } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { LowBalanceNote } from '../../components/low-balance.js';
import { AdjustPanel } from './adjust.js';
import { TopupBody } from '../../../gateway/contract/admin/schemas.js';
import { useFormErrors } from '../../components/use-form.js';
import type { FieldWords } from '../../lib/field-errors.js';
import { Usd } from '../../components/money.js';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { Skeleton } from '../../components/skeleton.js';
import './wallet.css';

const PRESETS = [5, 20, 50, 100];

const WORDS: Record<string, FieldWords> = {
  amountMicro: { label: 'the amount', bound: (n) => usd(n) },
  note: { label: 'the note' },
};

type Transaction = NonNullable<ReturnType<typeof useWalletTransactions>['data']>[number];

const HISTORY_COLUMNS: DataColumn<Transaction>[] = [
  {
    id: 'when',
    header: 'When',
    accessorFn: (t) => t.ts,
    sortDescFirst: true,
    cell: ({ row }) => dateTime(row.original.ts),
    meta: { className: 'mono muted' },
  },
  {
    id: 'kind',
    header: 'Kind',
    accessorFn: (t) => t.kind,
    cell: ({ row: { original: t } }) =>
      t.kind === 'topup' ? 'top-up' : <Badge tone={t.amountMicro < 0 ? 'warn' : 'info'}>adjustment</Badge>,
  },
  {
    id: 'amount',
    header: 'Amount',
    accessorFn: (t) => t.amountMicro,
    sortDescFirst: true,
    meta: { numeric: true, className: 'mono' },
    cell: ({ row: { original: t } }) => (
      <>
        {t.amountMicro > 0 && t.kind === 'adjustment' ? '+' : ''}
        <Usd micro={t.amountMicro} />
      </>
    ),
  },
  {
    id: 'note',
    header: 'Note',
    accessorFn: (t) => t.note ?? '',
    sortingFn: 'text',
    cell: ({ row }) => row.original.note ?? <span className="muted">—</span>,
  },
];

export function Wallet() {
  const wallet = useWallet();
  // Refreshed by the event stream when the wallet changes (live.ts).
  const history = useWalletTransactions();
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const topup = useAction(
    (a: { micro: number; note: string }) =>
      admin.call('topUp', { body: { amountMicro: a.micro, ...(a.note ? { note: a.note } : {}) } }),
    [qk.wallet, qk.walletTransactions],
    (_w, a) => `Added ${usd(a.micro)} to the wallet.`,
  );

  const form = useFormErrors(TopupBody, WORDS);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const micro = tryParseUsd(amount);
    const own =
      micro === undefined || micro <= 0
        ? { amountMicro: 'Enter an amount in dollars greater than 0, such as 10 or 2.50.' }
        : {};
    if (!form.check({ amountMicro: micro ?? 0, note }, own)) return;
    topup.mutate({ micro: micro!, note }, { onSuccess: () => (setAmount(''), setNote('')) });
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
            {w ? <Usd micro={w.balanceMicro} /> : <Skeleton width="120px" />}
          </span>
          <span className="stat-note">{w ? `${usd(settled)} free after what is held` : ''}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Held</span>
          <span className="stat-value">{w ? <Usd micro={w.heldMicro} /> : <Skeleton width="80px" />}</span>
          <span className="stat-note">reserved for requests in flight</span>
        </div>
        <div className="stat">
          <span className="stat-label">Settled spend</span>
          <span className="stat-value">{w ? <Usd micro={w.spentMicro} /> : <Skeleton width="80px" />}</span>
          <span className="stat-note">billed for finished requests</span>
        </div>
        <div className="stat">
          <span className="stat-label">Topped up</span>
          <span className="stat-value">{w ? <Usd micro={w.topupsMicro} /> : <Skeleton width="80px" />}</span>
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
        <form className="panel-pad topup-form" onSubmit={submit} noValidate>
          <Field label="Amount (USD)" htmlFor="topup-amount" error={form.at('amountMicro')}>
            <input
              id="topup-amount"
              inputMode="decimal"
              autoComplete="off"
              placeholder="10.00"
              value={amount}
              onChange={(e) => (setAmount(e.target.value), form.clear('amountMicro'))}
            />
          </Field>
          <div className="chips" role="group" aria-label="Quick amounts">
            {PRESETS.map((p) => (
              <button
                key={p}
                type="button"
                className="chip"
                onClick={() => (setAmount(String(p)), form.clear('amountMicro'))}
              >
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
        <ErrorNote error={topup.error} />
      </section>
      <AdjustPanel />
      <section className="panel" aria-labelledby="history-title">
        <div className="panel-head">
          <h2 id="history-title">History</h2>
          <span className="muted">top-ups and adjustments, newest first</span>
        </div>
        <DataTable
          label="Wallet history"
          framed={false}
          compact
          data={history.data}
          columns={HISTORY_COLUMNS}
          getRowId={(t) => String(t.id)}
          skeletonRows={3}
          empty={<p className="muted panel-pad">No top-ups yet.</p>}
        />
      </section>
    </>
  );
}
