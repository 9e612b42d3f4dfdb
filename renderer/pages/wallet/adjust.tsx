import { useState, type FormEvent } from 'react';
import { admin } from '../../lib/api.js';
import { ErrorNote, Field } from '../../components/ui.js';
import { tryParseUsd, usd } from '../../../gateway/contract/money.js';
import { AdjustBody } from '../../../gateway/contract/admin/schemas.js';
import { useFormErrors } from '../../components/use-form.js';
import type { FieldWords } from '../../lib/field-errors.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';

const WORDS: Record<string, FieldWords> = {
  amountMicro: { label: 'the adjustment', bound: (n) => usd(n) },
  note: { label: 'the reason', required: 'Say why in the note: it is kept with the adjustment.' },
};

/** A signed correction of the balance with the reason for it; it shows in the history with its note. */
export function AdjustPanel() {
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const adjust = useAction(
    (a: { micro: number; note: string }) =>
      admin.call('adjustWallet', { body: { amountMicro: a.micro, note: a.note } }),
    [qk.wallet, qk.walletTransactions],
    (_w, a) => `Adjusted the balance by ${usd(a.micro)}.`,
  );
  const form = useFormErrors(AdjustBody, WORDS);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const micro = tryParseUsd(amount, { signed: true });
    const own =
      micro === undefined || micro === 0
        ? { amountMicro: 'Enter a signed amount in dollars other than 0, such as -2.50 or 5.' }
        : {};
    const body = { amountMicro: micro ?? 0, note: note.trim() };
    if (!form.check(body, own)) return;
    adjust.mutate({ micro: body.amountMicro, note: body.note }, { onSuccess: () => (setAmount(''), setNote('')) });
  };
  return (
    <section className="panel" aria-labelledby="adjust-title">
      <div className="panel-head">
        <h2 id="adjust-title">Adjust</h2>
        <span className="muted">a correction, such as a top-up entered twice; negative takes money out</span>
      </div>
      <form className="panel-pad topup-form" onSubmit={submit} noValidate>
        <Field label="Adjustment (USD, signed)" htmlFor="adjust-amount" error={form.at('amountMicro')}>
          <input
            id="adjust-amount"
            inputMode="decimal"
            autoComplete="off"
            placeholder="-2.50"
            value={amount}
            onChange={(e) => (setAmount(e.target.value), form.clear('amountMicro'))}
          />
        </Field>
        <div className="field-note">
          <Field label="Reason (required)" htmlFor="adjust-note" error={form.at('note')}>
            <input
              id="adjust-note"
              maxLength={200}
              aria-required="true"
              placeholder="kept with the transaction"
              value={note}
              onChange={(e) => (setNote(e.target.value), form.clear('note'))}
            />
          </Field>
        </div>
        <button type="submit" className="button" disabled={adjust.isPending}>
          Adjust balance
        </button>
      </form>
      <ErrorNote error={adjust.error} />
    </section>
  );
}
