/**
 * One dialog adds a custom model and edits a model's prices. Prices are typed as USD per million
 * tokens and sent as integer micro-USD per million (parseUsd: exact, never through floats). A
 * preset model takes only prices (the gateway keeps them as an override); a custom one every field.
 * The body is checked against the contract's model schema before it is sent, each problem at its
 * field (components/use-form.ts); what text cannot even become a number is said here.
 */
import { useState } from 'react';
import { AddModelBody, UpdateModelBody } from '../../../gateway/contract/admin/model-schemas.js';
import { outputLimitProblem, type ModelFields } from '../../../gateway/contract/model-fields.js';
import { admin, type ModelView } from '../../lib/api.js';
import { Dialog } from '../../components/dialog.js';
import { Field } from '../../components/ui.js';
import { DialogForm, useDialogForm } from '../../components/crud.js';
import { tryParseUsd, usdDigits } from '../../../gateway/contract/money.js';
import { qk } from '../../lib/queries.js';
import type { FormErrors } from '../../components/use-form.js';
import type { FieldErrors, FieldWords } from '../../lib/field-errors.js';

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
const tokenBound = (n: number): string => `${n.toLocaleString('en-US')} tokens`;
const priceBound = (n: number): string => `$${usdDigits(n)}`;
const WORDS: Record<string, FieldWords> = {
  id: {
    label: 'the model id',
    required: 'Give the model an id: what clients send as "model".',
    pattern: 'Use letters, digits and . _ : / @ + -, starting with a letter or digit.',
  },
  vendor: { label: 'the vendor', pattern: 'Use letters, digits and . _ -, starting with a letter or digit.' },
  displayName: { label: 'the display name' },
  contextWindow: { label: 'the context window', bound: tokenBound },
  maxOutputTokens: { label: 'max output', bound: tokenBound },
  'prices.input': { label: 'the input price', bound: priceBound },
  'prices.output': { label: 'the output price', bound: priceBound },
  'prices.cacheRead': { label: 'the cache read price', bound: priceBound },
  'prices.cacheWrite': { label: 'the cache write price', bound: priceBound },
};
/** The gateway's refusals that belong to a field. */
const SERVER_FIELDS: Record<string, string> = { model_exists: 'id', name_taken: 'id' };

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

/** The form as API values, and what text in it is not even a number (the schema checks the rest). */
function parse(f: ModelForm): { parsed: Parsed; own: FieldErrors } {
  const own: FieldErrors = {};
  const contextWindow = tokens(f.contextWindow);
  const maxOutputTokens = tokens(f.maxOutputTokens);
  if (contextWindow === undefined) own.contextWindow = 'Enter a whole number of tokens, 1 or more, or leave it empty.';
  if (maxOutputTokens === undefined)
    own.maxOutputTokens = 'Enter a whole number of tokens, 1 or more, or leave it empty.';
  else if (
    typeof contextWindow === 'number' &&
    maxOutputTokens !== null &&
    outputLimitProblem({ contextWindow, maxOutputTokens })
  )
    own.maxOutputTokens = 'Max output cannot exceed the context window.';
  const prices = {} as Record<PriceField, number | null>;
  for (const [k] of PRICE_FIELDS) {
    const text = f.prices[k].trim();
    const micro = text === '' ? null : tryParseUsd(text);
    if (micro === undefined)
      own[`prices.${k}`] = 'Enter USD per million tokens, such as 2.5 or 0.075 (at most 6 decimals).';
    else if (micro === null && (k === 'input' || k === 'output')) own[`prices.${k}`] = 'Required (0 for a free model).';
    prices[k] = micro ?? null;
  }
  const parsed: Parsed = {
    ...(f.vendor.trim() ? { vendor: f.vendor.trim() } : {}),
    ...(f.displayName.trim() ? { displayName: f.displayName.trim() } : {}),
    ...(typeof contextWindow === 'number' ? { contextWindow } : {}),
    ...(typeof maxOutputTokens === 'number' ? { maxOutputTokens } : {}),
    prices,
  };
  return { parsed, own };
}

function FormFields<S extends typeof AddModelBody | typeof UpdateModelBody>({
  form,
  onChange,
  locked,
  errors,
}: {
  form: ModelForm;
  onChange(f: ModelForm): void;
  locked: { id: boolean; details: boolean };
  errors: FormErrors<S>;
}) {
  const set = (k: Exclude<keyof ModelForm, 'prices'>) => (e: { target: { value: string } }) => {
    errors.clear(k);
    onChange({ ...form, [k]: e.target.value });
  };
  const setPrice = (k: PriceField) => (e: { target: { value: string } }) => {
    errors.clear(`prices.${k}`);
    onChange({ ...form, prices: { ...form.prices, [k]: e.target.value } });
  };
  return (
    <>
      <div className="form-grid">
        <Field
          label="Model id"
          htmlFor="model-id"
          error={errors.at('id')}
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
        <Field
          label="Vendor"
          htmlFor="model-vendor"
          error={errors.at('vendor')}
          hint={locked.details ? undefined : 'Empty: custom.'}
        >
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
      <Field label="Display name" htmlFor="model-name" error={errors.at('displayName')}>
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
          error={errors.at('contextWindow')}
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
          error={errors.at('maxOutputTokens')}
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
            <Field key={k} label={label} htmlFor={`model-price-${k}`} hint={hint} error={errors.at(`prices.${k}`)}>
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
  const add = useDialogForm({
    schema: AddModelBody,
    words: WORDS,
    serverFields: SERVER_FIELDS,
    send: (body: AddModelBody) => admin.call('addModel', { body }),
    invalidates: [qk.models],
    done: ({ model }) => `Model "${model.id}" added.`,
  });
  const submit = (): void => {
    const { parsed, own } = parse(form);
    const { prices, ...details } = parsed;
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
    add.submit(body, {
      own,
      onSent: () => {
        setForm(EMPTY);
        onOpenChange(false);
      },
    });
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Add a model">
      <DialogForm
        errors={add.errors}
        busy={add.busy}
        onSubmit={submit}
        onCancel={() => onOpenChange(false)}
        submitLabel="Add model"
      >
        <FormFields form={form} onChange={setForm} locked={{ id: false, details: false }} errors={add.errors} />
      </DialogForm>
    </Dialog>
  );
}

/** Edits a model: prices of any, the details too of a custom one (in components/crud.tsx's ItemDialog). */
export function EditModelForm({ m, onClose }: { m: ModelView; onClose(): void }) {
  const [form, setForm] = useState(() => formOf(m));
  const preset = m.origin === 'preset';
  const save = useDialogForm({
    schema: UpdateModelBody,
    words: WORDS,
    serverFields: SERVER_FIELDS,
    send: (body: UpdateModelBody) => admin.call('updateModel', { params: { id: m.id }, body }),
    invalidates: [qk.models],
    done: ({ model }) => `Model "${model.id}" saved.`,
  });
  const submit = (): void => {
    const { parsed: p, own } = parse(form);
    // Only the prices that changed: an unchanged one sent to a preset model would become an override.
    const prices: Partial<Record<PriceField, number | null>> = {};
    for (const [k] of PRICE_FIELDS) if (p.prices[k] !== m.prices[k]) prices[k] = p.prices[k];
    const { prices: _prices, ...details } = p;
    const body: UpdateModelBody = { ...(preset ? {} : details), ...(Object.keys(prices).length > 0 ? { prices } : {}) };
    // Nothing changed and nothing wrong: nothing to send.
    if (Object.keys(body).length === 0 && Object.keys(own).length === 0) return onClose();
    save.submit(body, { own, onSent: onClose });
  };
  return (
    <DialogForm errors={save.errors} busy={save.busy} onSubmit={submit} onCancel={onClose} submitLabel="Save">
      <FormFields form={form} onChange={setForm} locked={{ id: true, details: preset }} errors={save.errors} />
    </DialogForm>
  );
}
