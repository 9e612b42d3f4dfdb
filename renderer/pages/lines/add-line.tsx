import { useState } from 'react';
import { LISTED_FORMATS, type FormatId } from '../../../gateway/contract/formats.js';
import { tryParseUsd } from '../../../gateway/contract/money.js';
import type { ProbedModelView, ProbeLineBody } from '../../../gateway/contract/admin/index.js';
import { admin, type PresetView } from '../../lib/api.js';
import { CreateLineBody } from '../../../gateway/contract/admin/schemas.js';
import { Dialog } from '../../components/dialog.js';
import { Field } from '../../components/ui.js';
import { DialogForm, useDialogForm } from '../../components/crud.js';
import { useToast } from '../../components/toast.js';
import { qk, useKeyStorage, useModels, usePresets } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { LINE_WORDS, lineErrors, placeOfLine, type LineErrors } from './line-errors.js';
import './line-form.css';
import { KeySourceField, type KeyMode } from './key-source.js';
import { ModelPicker, type ModelPick } from '../../components/model-picker.js';
import { FetchedModels, NewModelPricing, type NewPricing } from './model-picker.js';

interface Form {
  preset: string;
  name: string;
  protocol: FormatId;
  /** Empty: the preset's own. */
  baseUrl: string;
  /** A preset's listed models, ticked. */
  chosen: string[];
  /** Models added by hand or from the server's list. */
  picks: ModelPick[];
  pricing: NewPricing;
  keyMode: KeyMode;
  apiKey: string;
  apiKeyEnv: string;
  priority: string;
  weight: string;
}

function fresh(p: PresetView | undefined, keychain: boolean): Form {
  return {
    preset: p?.id ?? '',
    name: p?.id ?? '',
    protocol: 'openai-chat',
    baseUrl: '',
    chosen: p?.models ?? [],
    picks: [],
    pricing: { free: false, input: '', output: '' },
    keyMode: p?.auth === 'none' ? 'none' : keychain ? 'keychain' : 'env',
    apiKey: '',
    apiKeyEnv: p?.apiKeyEnv ?? '',
    priority: '0',
    weight: '1',
  };
}

/**
 * A new line, from a preset or by hand, right the first time: the preset's address can be changed
 * under Advanced, the server's own model list can be fetched and ticked, ids the catalogue lacks
 * are priced here, the key goes only where it can be kept, and each refusal shows at its field.
 * The API key field is write-only: it goes to the keychain and is never read back.
 */
export function AddLineDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const presets = usePresets();
  const models = useModels();
  const storage = useKeyStorage();
  const keychain = storage.data?.keychain !== false;
  const toast = useToast();
  const [f, setF] = useState<Form>(() => fresh(undefined, keychain));
  const [fetched, setFetched] = useState<ProbedModelView[] | null>(null);
  const probe = useAction((body: ProbeLineBody) => admin.call('probeLine', { body }), [], undefined, { inline: true });
  // The server's refusals, of the line or of the model list asked for, at the field they are about.
  const add = useDialogForm({
    schema: CreateLineBody,
    words: LINE_WORDS,
    serverFields: lineErrors,
    placeOf: placeOfLine,
    otherError: probe.error,
    send: (body: CreateLineBody) => admin.call('addLine', { body }),
    invalidates: [qk.lines, qk.models],
    done: (r) =>
      `Line "${r.line.name}" added with ${r.line.models.length} model${r.line.models.length === 1 ? '' : 's'}.`,
  });
  const at = add.errors.at;
  const preset = presets.data?.find((p) => p.id === f.preset);
  const catalogue = models.data?.map((m) => m.id) ?? [];
  const known = new Set(catalogue);
  // Should the answer come after the dialog opened, a keychain that is not there stops being the choice.
  const mode: KeyMode = f.keyMode === 'keychain' && !keychain ? 'env' : f.keyMode;
  const set = <K extends keyof Form>(k: K, v: Form[K]): void => setF((old) => ({ ...old, [k]: v }));
  const choose = (p: PresetView | undefined): void => {
    setF(fresh(p, keychain));
    setFetched(null);
    add.errors.reset();
    add.resetRefusal();
    probe.reset();
  };

  const close = (o: boolean): void => {
    // The key typed into a closed dialog is dropped, not kept for next time.
    if (!o) setF((old) => ({ ...old, apiKey: '' }));
    onOpenChange(o);
  };

  const keyFields = (): Pick<CreateLineBody, 'apiKey' | 'apiKeyEnv'> =>
    mode === 'keychain' && f.apiKey
      ? { apiKey: f.apiKey }
      : mode === 'env' && f.apiKeyEnv.trim()
        ? { apiKeyEnv: f.apiKeyEnv.trim() }
        : mode === 'none'
          ? { apiKeyEnv: null }
          : {};

  const fetchModels = (): void => {
    add.errors.reset();
    add.resetRefusal();
    const key = keyFields();
    probe.mutate(
      {
        ...(preset ? { preset: preset.id } : { protocol: f.protocol }),
        ...(f.baseUrl.trim() ? { baseUrl: f.baseUrl.trim() } : {}),
        ...(key.apiKey ? { apiKey: key.apiKey } : {}),
        ...(key.apiKeyEnv ? { apiKeyEnv: key.apiKeyEnv } : {}),
      },
      {
        onSuccess: (r) => {
          setFetched(r.models);
          // The catalogue's matches start ticked; ids it lacks wait for a person to choose them.
          const matched = r.models.filter((m) => m.catalogueId !== null);
          if (preset && preset.models.length > 0)
            setF((old) => ({
              ...old,
              chosen: [...new Set([...old.chosen.filter((id) => matched.some((m) => m.catalogueId === id))])],
            }));
          else
            set(
              'picks',
              matched.map((m) => (m.catalogueId !== m.id ? { id: m.catalogueId!, upstream: m.id } : { id: m.id })),
            );
        },
      },
    );
  };

  const presetListed = preset !== undefined && preset.models.length > 0;
  const served: ModelPick[] = [...(presetListed ? f.chosen.map((id) => ({ id })) : []), ...f.picks];
  const newIds = [...new Set(served.map((p) => p.id).filter((id) => !known.has(id)))];

  const check = (): LineErrors => {
    const e: LineErrors = {};
    if (!preset && !f.name.trim()) e.name = 'Give the line a name; it is shown in the usage log.';
    if (!preset && !f.baseUrl.trim()) e.baseUrl = 'Give the address of the server, such as https://api.example.com/v1.';
    if (served.length === 0 && !(preset && !presetListed))
      e.models = 'Choose at least one model, or fetch the list from the server.';
    if (mode === 'keychain' && !f.apiKey) e.key = 'Paste the API key, or choose an environment variable or no key.';
    if (mode === 'env' && !f.apiKeyEnv.trim()) e.key = 'Name the environment variable that holds the key.';
    if (newIds.length > 0 && !f.pricing.free) {
      const input = tryParseUsd(f.pricing.input);
      const output = tryParseUsd(f.pricing.output);
      if (input === undefined || output === undefined)
        e.prices = 'Give the input and output price in dollars per million tokens (0.27, 1.10), or choose Free.';
    }
    return e;
  };

  const submit = (): void => {
    if (!add.errors.show(check())) return;
    const modelMap = Object.fromEntries(served.filter((p) => p.upstream).map((p) => [p.id, p.upstream!]));
    const body: CreateLineBody = {
      ...(preset ? { preset: preset.id } : { protocol: f.protocol }),
      ...(f.baseUrl.trim() ? { baseUrl: f.baseUrl.trim() } : {}),
      ...(f.name.trim() ? { name: f.name.trim() } : {}),
      ...(served.length > 0 ? { models: served.map((p) => p.id) } : {}),
      ...(Object.keys(modelMap).length > 0 ? { modelMap } : {}),
      ...(newIds.length > 0
        ? {
            addModels: f.pricing.free
              ? { free: true }
              : { prices: { input: tryParseUsd(f.pricing.input)!, output: tryParseUsd(f.pricing.output)! } },
          }
        : {}),
      ...keyFields(),
      priority: Number(f.priority) || 0,
      weight: Number(f.weight) >= 0 ? Number(f.weight) : 1,
    };
    probe.reset();
    add.submit(body, {
      onSent: (r) => {
        for (const w of r.warnings ?? []) toast.show(w, 'error');
        choose(undefined);
        close(false);
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={close} title="Add a line" wide>
      <DialogForm
        errors={add.errors}
        busy={add.busy}
        onSubmit={submit}
        onCancel={() => close(false)}
        submitLabel="Add line"
      >
        <Field
          label="Provider"
          htmlFor="line-preset"
          error={at('preset')}
          hint={
            preset
              ? `Speaks ${preset.protocol} at ${f.baseUrl.trim() || preset.baseUrl}`
              : 'Any OpenAI-, Anthropic- or Gemini-compatible server.'
          }
        >
          <select
            id="line-preset"
            value={f.preset}
            autoFocus
            onChange={(e) => choose(presets.data?.find((p) => p.id === e.target.value))}
          >
            <option value="">Custom (no preset)</option>
            {presets.data?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.displayName}
              </option>
            ))}
          </select>
        </Field>
        <div className="form-grid">
          <Field label="Name" htmlFor="line-name" hint="Unique; shown in the log." error={at('name')}>
            <input id="line-name" value={f.name} onChange={(e) => set('name', e.target.value)} />
          </Field>
          {!preset ? (
            <Field label="Protocol" htmlFor="line-protocol">
              <select
                id="line-protocol"
                value={f.protocol}
                onChange={(e) => set('protocol', e.target.value as FormatId)}
              >
                {LISTED_FORMATS.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </Field>
          ) : null}
        </div>
        {!preset ? <BaseUrlField f={f} set={set} error={at('baseUrl')} /> : null}
        <KeySourceField
          mode={mode}
          onMode={(m) => set('keyMode', m)}
          apiKey={f.apiKey}
          onApiKey={(v) => set('apiKey', v)}
          apiKeyEnv={f.apiKeyEnv}
          onApiKeyEnv={(v) => set('apiKeyEnv', v)}
          keychainReason={storage.data?.keychain === false ? storage.data.keychainReason : null}
          error={at('key')}
        />
        <div className="fetch-row">
          <button type="button" className="button button-small" onClick={fetchModels} disabled={probe.isPending}>
            {probe.isPending ? 'Asking the server…' : 'Fetch models from the server'}
          </button>
          <span className="field-hint">Asks the server which models it has, with the key above (not stored yet).</span>
        </div>
        {fetched ? (
          <FetchedModels
            fetched={fetched}
            picks={presetListed ? f.chosen.map((id) => ({ id })).concat(f.picks) : f.picks}
            onChange={(picks) => {
              if (presetListed) {
                const ids = new Set(preset.models);
                set(
                  'chosen',
                  picks.filter((p) => ids.has(p.id) && !p.upstream).map((p) => p.id),
                );
                set(
                  'picks',
                  picks.filter((p) => !ids.has(p.id) || p.upstream),
                );
              } else set('picks', picks);
            }}
          />
        ) : null}
        {presetListed ? (
          <fieldset className="field">
            <legend>
              Models ({f.chosen.length} of {preset.models.length})
            </legend>
            <div className="check-grid">
              {preset.models.map((m) => (
                <label key={m} className="check">
                  <input
                    type="checkbox"
                    checked={f.chosen.includes(m)}
                    onChange={(e) =>
                      set('chosen', e.target.checked ? [...f.chosen, m] : f.chosen.filter((x) => x !== m))
                    }
                  />
                  <code>{m}</code>
                </label>
              ))}
            </div>
          </fieldset>
        ) : null}
        <Field
          label={presetListed ? 'More models' : 'Models'}
          htmlFor="line-models"
          error={at('models')}
          hint={
            preset && !presetListed
              ? 'Leave empty to serve every model the server lists.'
              : 'Catalogue ids complete as you type.'
          }
        >
          <ModelPicker inputId="line-models" picks={f.picks} onChange={(p) => set('picks', p)} catalogue={catalogue} />
        </Field>
        {newIds.length > 0 ? (
          <NewModelPricing ids={newIds} pricing={f.pricing} onChange={(p) => set('pricing', p)} error={at('prices')} />
        ) : null}
        <details className="advanced">
          <summary>Advanced</summary>
          {preset ? <BaseUrlField f={f} set={set} error={at('baseUrl')} placeholder={preset.baseUrl} /> : null}
          <div className="form-grid">
            <Field label="Priority" htmlFor="line-priority" hint="Higher is tried first.">
              <input
                id="line-priority"
                inputMode="numeric"
                value={f.priority}
                onChange={(e) => set('priority', e.target.value)}
              />
            </Field>
            <Field label="Weight" htmlFor="line-weight" hint="Share among equal priorities.">
              <input
                id="line-weight"
                inputMode="numeric"
                value={f.weight}
                onChange={(e) => set('weight', e.target.value)}
              />
            </Field>
          </div>
        </details>
      </DialogForm>
    </Dialog>
  );
}

function BaseUrlField({
  f,
  set,
  error,
  placeholder,
}: {
  f: Form;
  set<K extends keyof Form>(k: K, v: Form[K]): void;
  error: string | undefined;
  placeholder?: string;
}) {
  return (
    <Field
      label="Base URL"
      htmlFor="line-url"
      error={error}
      hint={
        placeholder
          ? 'Leave empty for the provider’s own; change it for a proxy, a company gateway or another host.'
          : 'OpenAI-style servers: ending in /v1. Anthropic and Gemini: the origin.'
      }
    >
      <input
        id="line-url"
        placeholder={placeholder ?? 'https://api.example.com/v1'}
        value={f.baseUrl}
        onChange={(e) => set('baseUrl', e.target.value)}
      />
    </Field>
  );
}
