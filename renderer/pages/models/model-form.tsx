/**
 * One dialog adds a custom model and edits a model's prices. Prices are typed as USD per million
 * tokens and sent as integer micro-USD per million (parseUsd: exact, never through floats). A
 * preset model takes only prices (the gateway keeps them as an override); a custom one every field.
 */
import { useState, type FormEvent } from 'react';
import type { AddModelBody, UpdateModelBody } from '../../../gateway/contract/admin/index.js';
import {
  MODEL_ID_PATTERN,
  outputLimitProblem,
  USER_VENDOR_PATTERN,
  type ModelFields,
} from '../../../gateway/contract/model-fields.js';
import { admin, type ModelView } from '../../lib/api.js';
import { Dialog } from '../../components/dialog.js';
import { Field, FormFooter } from '../../components/ui.js';
import { tryParseUsd, usdDigits } from '../../../gateway/contract/money.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';

type PriceField = 'input' | 'output' | 'cacheRead' | 'cacheWrite';
const PRICE_FIELDS: [PriceField, string, string][] = [
  ['input', 'Input', 'Required.'],
  ['output', 'Output', 'Required.'],
  ['cacheRead', 'Cache read', 'Empty: billed as input.'],
  ['cacheWrite', 'Cache write', 'Empty: billed as input.'],
];

interface ModelForm {
  id: string;
  vendor: string;
  displayName: string;
  contextWindow: string;
  maxOutputTokens: string;
  prices: Record<PriceField, string>;
}

const EMPTY: ModelForm = {
  id: '',
  vendor: '',
  displayName: '',
  contextWindow: '',
  maxOutputTokens: '',
  prices: { input: '', output: '', cacheRead: '', cacheWrite: '' },
};
const ID = new RegExp(MODEL_ID_PATTERN);
const VENDOR = new RegExp(USER_VENDOR_PATTERN);

const priceText = (micro: number): string => usdDigits(micro);

function formOf(m: ModelView): ModelForm {
  return {
    id: m.id,
    vendor: m.vendor,
    displayName: m.displayName,
    contextWindow: String(m.contextWindow),
    maxOutputTokens: String(m.maxOutputTokens),
    prices: {
      input: priceText(m.prices.input),
      output: priceText(m.prices.output),
      cacheRead: priceText(m.prices.cacheRead),
      cacheWrite: priceText(m.prices.cacheWrite),
    },
  };
}

interface Parsed extends Partial<Pick<ModelFields, 'vendor' | 'displayName' | 'contextWindow' | 'maxOutputTokens'>> {
  /** micro-USD per million; null where the field was left empty. */
  prices: Record<PriceField, number | null>;
}

function tokens(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text.replaceAll(',', ''));
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000_000 ? n : undefined;
}

/** The form as API values, or what is wrong with it in words. */
function parse(f: ModelForm): Parsed | string {
  if (f.vendor.trim() && !VENDOR.test(f.vendor.trim()))
    return 'Vendor: letters, digits and . _ -, starting with a letter or digit.';
  const contextWindow = tokens(f.contextWindow);
  const maxOutputTokens = tokens(f.maxOutputTokens);
  if (contextWindow === undefined || maxOutputTokens === undefined)
    return 'Context and max output: whole numbers of tokens, 1 or more.';
  if (contextWindow !== null && maxOutputTokens !== null && outputLimitProblem({ contextWindow, maxOutputTokens }))
    return 'Max output cannot exceed the context window.';
  const prices = {} as Record<PriceField, number | null>;
  for (const [k, label] of PRICE_FIELDS) {
    const text = f.prices[k].trim();
    const micro = text === '' ? null : tryParseUsd(text);
    if (micro === undefined)
      return `${label} price: USD per million tokens, such as 2.5 or 0.075 (at most 6 decimals).`;
    if (micro === null && (k === 'input' || k === 'output')) return `${label} price is required (0 for a free model).`;
    prices[k] = micro;
  }
  return {
    ...(f.vendor.trim() ? { vendor: f.vendor.trim() } : {}),
    ...(f.displayName.trim() ? { displayName: f.displayName.trim() } : {}),
    ...(contextWindow !== null ? { contextWindow } : {}),
    ...(maxOutputTokens !== null ? { maxOutputTokens } : {}),
    prices,
  };
}

function FormFields({
  form,
  onChange,
  locked,
}: {
  form: ModelForm;
  onChange(f: ModelForm): void;
  locked: { id: boolean; details: boolean };
}) {
  const set = (k: Exclude<keyof ModelForm, 'prices'>) => (e: { target: { value: string } }) =>
    onChange({ ...form, [k]: e.target.value });
  const setPrice = (k: PriceField) => (e: { target: { value: string } }) =>
    onChange({ ...form, prices: { ...form.prices, [k]: e.target.value } });
  return (
    <>
      <div className="form-grid">
        <Field
          label="Model id"
          htmlFor="model-id"
          hint={locked.id ? undefined : 'What clients send as "model", e.g. qwen3-coder:30b.'}
        >
          <input
            id="model-id"
            required
            autoComplete="off"
            spellCheck={false}
            maxLength={200}
            readOnly={locked.id}
            value={form.id}
            onChange={set('id')}
            autoFocus={!locked.id}
          />
        </Field>
        <Field label="Vendor" htmlFor="model-vendor" hint={locked.details ? undefined : 'Empty: custom.'}>
          <input
            id="model-vendor"
            autoComplete="off"
            maxLength={64}
            placeholder="custom"
            readOnly={locked.details}
            value={form.vendor}
            onChange={set('vendor')}
          />
        </Field>
      </div>
      <Field label="Display name" htmlFor="model-name">
        <input
          id="model-name"
          autoComplete="off"
          maxLength={200}
          placeholder="the id"
          readOnly={locked.details}
          value={form.displayName}
          onChange={set('displayName')}
        />
      </Field>
      <div className="form-grid">
        <Field
          label="Context window (tokens)"
          htmlFor="model-context"
          hint={locked.details ? undefined : 'Empty: 128,000.'}
        >
          <input
            id="model-context"
            inputMode="numeric"
            autoComplete="off"
            placeholder="128000"
            readOnly={locked.details}
            value={form.contextWindow}
            onChange={set('contextWindow')}
          />
        </Field>
        <Field
          label="Max output (tokens)"
          htmlFor="model-max-output"
          hint={locked.details ? undefined : 'Empty: the context window.'}
        >
          <input
            id="model-max-output"
            inputMode="numeric"
            autoComplete="off"
            placeholder="context"
            readOnly={locked.details}
            value={form.maxOutputTokens}
            onChange={set('maxOutputTokens')}
          />
        </Field>
      </div>
      {locked.details ? (
        <p className="field-hint">
          A preset model keeps its details; the prices you set override the preset's until you reset them.
        </p>
      ) : null}
      <fieldset className="field model-prices">
        <legend>Prices (USD per million tokens)</legend>
        <div className="form-grid">
          {PRICE_FIELDS.map(([k, label, hint]) => (
            <Field key={k} label={label} htmlFor={`model-price-${k}`} hint={hint}>
              <input
                id={`model-price-${k}`}
                inputMode="decimal"
                autoComplete="off"
                required={k === 'input' || k === 'output'}
                value={form.prices[k]}
                onChange={setPrice(k)}
              />
            </Field>
          ))}
        </div>
      </fieldset>
    </>
  );
}

/** Adds a custom model. */
export function AddModelDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const [form, setForm] = useState(EMPTY);
  const [problem, setProblem] = useState<string | null>(null);
  const add = useAction(
    (body: AddModelBody) => admin.call('addModel', { body }),
    [qk.models],
    ({ model }) => `Model "${model.id}" added.`,
  );
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const p = parse(form);
    const problemText = !ID.test(form.id.trim())
      ? 'Model id: letters, digits and . _ : / @ + -, starting with a letter or digit.'
      : typeof p === 'string'
        ? p
        : null;
    setProblem(problemText);
    if (problemText || typeof p === 'string') return;
    const { prices, ...details } = p;
    const body: AddModelBody = {
      id: form.id.trim(),
      ...details,
      prices: {
        input: prices.input ?? 0,
        output: prices.output ?? 0,
        ...(prices.cacheRead !== null ? { cacheRead: prices.cacheRead } : {}),
        ...(prices.cacheWrite !== null ? { cacheWrite: prices.cacheWrite } : {}),
      },
    };
    add.mutate(body, {
      onSuccess: () => {
        setForm(EMPTY);
        onOpenChange(false);
      },
    });
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Add a model">
      <form className="form" onSubmit={submit}>
        <FormFields form={form} onChange={setForm} locked={{ id: false, details: false }} />
        <FormFooter
          problem={problem}
          error={add.error}
          onCancel={() => onOpenChange(false)}
          busy={add.isPending}
          submitLabel="Add model"
        />
      </form>
    </Dialog>
  );
}

/** Edits a model: prices of any, the details too of a custom one. */
export function EditModelDialog({ model, onClose }: { model: ModelView | null; onClose(): void }) {
  return (
    <Dialog open={model !== null} onOpenChange={(o) => !o && onClose()} title={`Edit model "${model?.id ?? ''}"`}>
      {model ? <EditModelForm key={model.id} m={model} onClose={onClose} /> : null}
    </Dialog>
  );
}

function EditModelForm({ m, onClose }: { m: ModelView; onClose(): void }) {
  const [form, setForm] = useState(() => formOf(m));
  const [problem, setProblem] = useState<string | null>(null);
  const preset = m.origin === 'preset';
  const save = useAction(
    (body: UpdateModelBody) => admin.call('updateModel', { params: { id: m.id }, body }),
    [qk.models],
    ({ model }) => `Model "${model.id}" saved.`,
  );
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const p = parse(form);
    if (typeof p === 'string') return setProblem(p);
    setProblem(null);
    // Only the prices that changed: an unchanged one sent to a preset model would become an override.
    const prices: Partial<Record<PriceField, number | null>> = {};
    for (const [k] of PRICE_FIELDS) if (p.prices[k] !== m.prices[k]) prices[k] = p.prices[k];
    const { prices: _prices, ...details } = p;
    const body: UpdateModelBody = { ...(preset ? {} : details), ...(Object.keys(prices).length > 0 ? { prices } : {}) };
    if (Object.keys(body).length === 0) return onClose();
    save.mutate(body, { onSuccess: onClose });
  };
  return (
    <form className="form" onSubmit={submit}>
      <FormFields form={form} onChange={setForm} locked={{ id: true, details: preset }} />
      <FormFooter problem={problem} error={save.error} onCancel={onClose} busy={save.isPending} submitLabel="Save" />
    </form>
  );
}
