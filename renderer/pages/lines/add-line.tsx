import { useState, type FormEvent } from 'react';
import { LISTED_FORMATS, type FormatId } from '../../../gateway/contract/formats.js';
import { admin, type CreateLineBody, type PresetView } from '../../lib/api.js';
import { Dialog } from '../../components/dialog.js';
import { Field, FormFooter } from '../../components/ui.js';
import { qk, useModels, usePresets } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { parseModels } from './models-field.js';

type KeyMode = 'keychain' | 'env' | 'none';

interface Form {
  preset: string;
  name: string;
  protocol: FormatId;
  baseUrl: string;
  chosen: string[];
  modelsText: string;
  keyMode: KeyMode;
  apiKey: string;
  apiKeyEnv: string;
  priority: string;
  weight: string;
}

function fresh(p: PresetView | undefined): Form {
  return {
    preset: p?.id ?? '',
    name: p?.id ?? '',
    protocol: 'openai-chat',
    baseUrl: '',
    chosen: p?.models ?? [],
    modelsText: '',
    keyMode: p?.auth === 'none' ? 'none' : 'keychain',
    apiKey: '',
    apiKeyEnv: p?.apiKeyEnv ?? '',
    priority: '0',
    weight: '1',
  };
}

/** A new line, from a preset or by hand. The API key field is write-only: it goes to the keychain and is never read back. */
export function AddLineDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const presets = usePresets();
  const models = useModels();
  const [f, setF] = useState<Form>(fresh(undefined));
  const add = useAction(
    (body: CreateLineBody) => admin.call('addLine', { body }).then((r) => r.line),
    [qk.lines, qk.models],
    (l) => `Line "${l.name}" added with ${l.models.length} models.`,
  );
  const preset = presets.data?.find((p) => p.id === f.preset);
  const set = <K extends keyof Form>(k: K, v: Form[K]): void => setF((old) => ({ ...old, [k]: v }));

  const [problem, setProblem] = useState<string | null>(null);
  const close = (o: boolean): void => {
    // The key typed into a closed dialog is dropped, not kept for next time.
    if (!o) setF((old) => ({ ...old, apiKey: '' }));
    onOpenChange(o);
  };

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (f.keyMode === 'keychain' && !f.apiKey) {
      setProblem('Paste the API key, or choose an environment variable or no key.');
      return;
    }
    setProblem(null);
    const typed = parseModels(f.modelsText);
    const listed = preset && preset.models.length > 0;
    const body: CreateLineBody = {
      ...(preset ? { preset: preset.id } : { protocol: f.protocol, baseUrl: f.baseUrl.trim() }),
      ...(f.name.trim() ? { name: f.name.trim() } : {}),
      ...(listed
        ? { models: f.chosen }
        : typed.models.length > 0
          ? { models: typed.models, modelMap: typed.modelMap }
          : {}),
      ...(f.keyMode === 'keychain' && f.apiKey ? { apiKey: f.apiKey } : {}),
      ...(f.keyMode === 'env' ? { apiKeyEnv: f.apiKeyEnv.trim() } : {}),
      ...(f.keyMode === 'none' ? { apiKeyEnv: null } : {}),
      priority: Number(f.priority) || 0,
      weight: Number(f.weight) >= 0 ? Number(f.weight) : 1,
    };
    add.mutate(body, {
      onSuccess: () => {
        setF(fresh(undefined));
        close(false);
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={close} title="Add a line" wide>
      <form className="form" onSubmit={submit} autoComplete="off">
        <Field
          label="Provider"
          htmlFor="line-preset"
          hint={
            preset ? (
              <>
                Base URL {preset.baseUrl} · speaks {preset.protocol}
              </>
            ) : (
              'Any OpenAI-, Anthropic- or Gemini-compatible server.'
            )
          }
        >
          <select
            id="line-preset"
            value={f.preset}
            autoFocus
            onChange={(e) => setF(fresh(presets.data?.find((p) => p.id === e.target.value)))}
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
          <Field label="Name" htmlFor="line-name" hint="Unique; shown in the log.">
            <input id="line-name" value={f.name} required={!preset} onChange={(e) => set('name', e.target.value)} />
          </Field>
          {!preset ? (
            <Field label="Protocol" htmlFor="line-protocol">
              <select
                id="line-protocol"
                value={f.protocol}
                onChange={(e) => set('protocol', e.target.value as Form['protocol'])}
              >
                {LISTED_FORMATS.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </Field>
          ) : null}
        </div>
        {!preset ? (
          <Field
            label="Base URL"
            htmlFor="line-url"
            hint="OpenAI-style servers: ending in /v1. Anthropic and Gemini: the origin."
          >
            <input
              id="line-url"
              required
              placeholder="https://api.example.com/v1"
              value={f.baseUrl}
              onChange={(e) => set('baseUrl', e.target.value)}
            />
          </Field>
        ) : null}
        {preset && preset.models.length > 0 ? (
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
        ) : (
          <Field
            label="Models"
            htmlFor="line-models"
            hint="Catalogue ids, comma-separated; id=upstream-id when the server names a model differently."
          >
            <input
              id="line-models"
              list="line-model-ids"
              required
              placeholder="gpt-4o, llama-3.3-70b=llama3.3:70b"
              value={f.modelsText}
              onChange={(e) => set('modelsText', e.target.value)}
            />
            <datalist id="line-model-ids">
              {models.data?.map((m) => (
                <option key={m.id} value={m.id} />
              ))}
            </datalist>
          </Field>
        )}
        <fieldset className="field">
          <legend>API key</legend>
          <div className="radio-row">
            {(['keychain', 'env', 'none'] as const).map((m) => (
              <label key={m} className="check">
                <input type="radio" name="key-mode" checked={f.keyMode === m} onChange={() => set('keyMode', m)} />
                {m === 'keychain'
                  ? 'Store in the OS keychain'
                  : m === 'env'
                    ? 'Environment variable'
                    : 'No key (local server)'}
              </label>
            ))}
          </div>
          {f.keyMode === 'keychain' ? (
            <>
              <input
                id="line-key"
                type="password"
                aria-label="API key"
                placeholder="paste the provider's API key"
                value={f.apiKey}
                onChange={(e) => set('apiKey', e.target.value)}
              />
              <p className="field-hint">Write-only: Tollgate hands it to the OS keychain and never shows it again.</p>
            </>
          ) : f.keyMode === 'env' ? (
            <>
              <input
                id="line-env"
                aria-label="Environment variable"
                className="mono"
                placeholder="OPENAI_API_KEY"
                value={f.apiKeyEnv}
                onChange={(e) => set('apiKeyEnv', e.target.value)}
              />
              <p className="field-hint">Read from the gateway's environment at each request.</p>
            </>
          ) : null}
        </fieldset>
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
        <FormFooter
          problem={problem}
          error={add.error}
          onCancel={() => close(false)}
          busy={add.isPending}
          submitLabel="Add line"
        />
      </form>
    </Dialog>
  );
}
