import { useState, type FormEvent } from 'react';
import { admin } from '../../lib/api.js';
import { ErrorNote, Field } from '../../components/ui.js';
import { tryParseUsd, usd } from '../../../gateway/contract/money.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';

/** A signed correction of the balance with the reason for it; it shows in the history with its note. */
export function AdjustPanel() {
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const adjust = useAction(
    (a: { micro: number; note: string }) =>
      admin.call('adjustWallet', { body: { amountMicro: a.micro, note: a.note } }),
    [qk.wallet, qk.walletTransactions],
    (_w, a) => `Adjusted the balance by ${usd(a.micro)}.`,
  );
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const micro = tryParseUsd(amount, { signed: true });
    if (micro === undefined || micro === 0)
      return setProblem('Enter a signed amount in dollars other than 0, such as -2.50 or 5.');
    if (note.trim() === '') return setProblem('Say why in the note: it is kept with the adjustment.');
    setProblem(null);
    adjust.mutate({ micro, note: note.trim() }, { onSuccess: () => (setAmount(''), setNote('')) });
  };
  return (
    <section className="panel" aria-labelledby="adjust-title">
      <div className="panel-head">
        <h2 id="adjust-title">Adjust</h2>
        <span className="muted">a correction, such as a top-up entered twice; negative takes money out</span>
      </div>
      <form className="panel-pad topup-form" onSubmit={submit}>
        <Field label="Adjustment (USD, signed)" htmlFor="adjust-amount">
          <input
            id="adjust-amount"
            inputMode="decimal"
            autoComplete="off"
            placeholder="-2.50"
            value={amount}
            aria-invalid={problem !== null}
            onChange={(e) => setAmount(e.target.value)}
          />
        </Field>
        <div className="field field-note">
          <label htmlFor="adjust-note">Reason (required)</label>
          <input
            id="adjust-note"
            maxLength={200}
            aria-required="true"
            placeholder="kept with the transaction"
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={adjust.isPending}>
          Adjust balance
        </button>
      </form>
      {problem ? (
        <p className="error-note panel-pad" role="alert">
          {problem}
        </p>
      ) : null}
      <ErrorNote error={adjust.error} />
    </section>
  );
}
