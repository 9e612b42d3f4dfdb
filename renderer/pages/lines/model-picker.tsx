/**
 * A line's models beyond the picker (components/model-picker.tsx): after "Fetch models from the
 * server", the server's own list as a checklist with the catalogue's matches ticked, and the prices
 * of the ids the catalogue lacks (NewModelPricing).
 */
import type { ModelPick } from '../../components/model-picker.js';
import type { ProbedModelView } from '../../../gateway/contract/admin/index.js';
import { usdPrice } from '../../../gateway/contract/money.js';

/** A fetched model as the line will serve it: under its catalogue id where there is one. */
export function pickOfProbed(m: ProbedModelView): ModelPick {
  return m.catalogueId && m.catalogueId !== m.id
    ? { id: m.catalogueId, upstream: m.id }
    : { id: m.catalogueId ?? m.id };
}

/** The server's list as a checklist: ticked ones are served; ids the catalogue lacks are marked new. */
export function FetchedModels({
  fetched,
  picks,
  onChange,
}: {
  fetched: ProbedModelView[];
  picks: ModelPick[];
  onChange(picks: ModelPick[]): void;
}) {
  const chosen = new Set(picks.map((p) => p.upstream ?? p.id));
  const toggle = (m: ProbedModelView, on: boolean): void => {
    const p = pickOfProbed(m);
    onChange(on ? [...picks.filter((x) => x.id !== p.id), p] : picks.filter((x) => (x.upstream ?? x.id) !== m.id));
  };
  const all = (on: boolean): void =>
    onChange(on ? [...new Map([...picks, ...fetched.map(pickOfProbed)].map((p) => [p.id, p])).values()] : []);
  return (
    <fieldset className="field">
      <legend>
        The server lists {fetched.length} models ({fetched.filter((m) => chosen.has(m.id)).length} chosen)
      </legend>
      <div className="fetched-actions">
        <button type="button" className="button button-small" onClick={() => all(true)}>
          Choose all
        </button>
        <button type="button" className="button button-small" onClick={() => all(false)}>
          Choose none
        </button>
      </div>
      <div className="check-grid" role="group" aria-label="Models the server lists">
        {fetched.map((m) => (
          <label key={m.id} className="check">
            <input type="checkbox" checked={chosen.has(m.id)} onChange={(e) => toggle(m, e.target.checked)} />
            <code>{m.id}</code>
            {m.catalogueId ? null : <span className="model-new-tag">new</span>}
            {m.listedPrice ? (
              <span className="muted">
                {usdPrice(m.listedPrice.input)}/{usdPrice(m.listedPrice.output)}
              </span>
            ) : null}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export interface NewPricing {
  free: boolean;
  input: string;
  output: string;
}

/** How the ids the catalogue lacks are priced: free (a local server), or input and output per million tokens. */
export function NewModelPricing({
  ids,
  pricing,
  onChange,
  error,
}: {
  ids: string[];
  pricing: NewPricing;
  onChange(p: NewPricing): void;
  error?: string | null | undefined;
}) {
  return (
    <fieldset className="field new-models">
      <legend>
        {ids.length === 1 ? 'A model' : `${ids.length} models`} new to the catalogue: {ids.join(', ')}
      </legend>
      <div className="radio-row">
        <label className="check">
          <input
            type="radio"
            name="new-pricing"
            checked={pricing.free}
            onChange={() => onChange({ ...pricing, free: true })}
          />
          Free (a local server)
        </label>
        <label className="check">
          <input
            type="radio"
            name="new-pricing"
            checked={!pricing.free}
            onChange={() => onChange({ ...pricing, free: false })}
          />
          Priced
        </label>
      </div>
      {pricing.free ? null : (
        <div className="form-grid">
          <div className="field">
            <label htmlFor="new-input-price">Input, USD per million tokens</label>
            <input
              id="new-input-price"
              inputMode="decimal"
              placeholder="e.g. 0.27"
              value={pricing.input}
              aria-invalid={error ? true : undefined}
              onChange={(e) => onChange({ ...pricing, input: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="new-output-price">Output, USD per million tokens</label>
            <input
              id="new-output-price"
              inputMode="decimal"
              placeholder="e.g. 1.10"
              value={pricing.output}
              aria-invalid={error ? true : undefined}
              onChange={(e) => onChange({ ...pricing, output: e.target.value })}
            />
          </div>
        </div>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : (
        <p className="field-hint">The same price for each; change any of them later on the Models page.</p>
      )}
    </fieldset>
  );
}
