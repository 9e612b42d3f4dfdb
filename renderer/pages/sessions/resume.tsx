/** Resuming a paused session, optionally raising its cap by an amount typed in USD (checked at the field). */
import { useState, type FormEvent } from 'react';
import { admin, type SessionView } from '../../lib/api.js';
import { useAction } from '../../components/use-action.js';
import { qk } from '../../lib/queries.js';
import { tryParseUsd, usd } from '../../../gateway/contract/money.js';

export function ResumeForm({ s }: { s: SessionView }) {
  const [add, setAdd] = useState('');
  const addMicro = add.trim() === '' ? 0 : tryParseUsd(add);
  const problem =
    addMicro === undefined
      ? 'An amount in USD with at most 6 decimals, e.g. 2 or 0.50; leave empty to add nothing.'
      : null;
  const resume = useAction(
    (body: { addMicro?: number }) => admin.call('resumeSession', { params: { id: s.id }, body }),
    [qk.sessions],
    (r) => (
      setAdd(''),
      `Session resumed${r.session.capMicro !== null ? `; its cap is now ${usd(r.session.capMicro)}` : ''}.`
    ),
  );
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (addMicro === undefined) return;
    resume.mutate(addMicro > 0 ? { addMicro } : {});
  };
  const button = (
    <button type="submit" className="button button-primary" disabled={resume.isPending || problem !== null}>
      Resume session
    </button>
  );
  return (
    <form className="resume-form" onSubmit={submit} noValidate>
      {s.capMicro !== null ? (
        <div className="field">
          <label htmlFor="resume-add">Add to its cap (USD, optional)</label>
          <div className="resume-row">
            <input
              id="resume-add"
              inputMode="decimal"
              placeholder="0.00"
              value={add}
              aria-invalid={problem !== null}
              aria-describedby="resume-add-hint"
              onChange={(e) => setAdd(e.target.value)}
            />
            {button}
          </div>
          <p id="resume-add-hint" className={problem ? 'field-error' : 'field-hint'}>
            {problem ?? `The cap is ${usd(s.capMicro)}; it has spent ${usd(s.costMicro)}.`}
          </p>
        </div>
      ) : (
        <div className="resume-row">
          <p className="muted">Its key has no session cap: resuming lets its requests through again.</p>
          {button}
        </div>
      )}
    </form>
  );
}
