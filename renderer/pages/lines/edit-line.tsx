import { useState } from 'react';
import { tryParseUsd } from '../../../gateway/contract/money.js';
import { admin, type LineView } from '../../lib/api.js';
import { UpdateLineBody } from '../../../gateway/contract/admin/schemas.js';
import { Field } from '../../components/ui.js';
import { DialogForm, useDialogForm } from '../../components/crud.js';
import { useToast } from '../../components/toast.js';
import { qk, useKeyStorage, useModels } from '../../lib/queries.js';
import { VendorFields } from './vendor-fields.js';
import { KeySourceField, type KeyMode } from './key-source.js';
import { LINE_WORDS, lineErrors, placeOfLine, type LineErrors } from './line-errors.js';
import { ModelPicker, type ModelPick } from '../../components/model-picker.js';
import { NewModelPricing, type NewPricing } from './model-picker.js';

interface Form {
  baseUrl: string;
  picks: ModelPick[];
  pricing: NewPricing;
  priority: string;
  weight: string;
  rpm: string;
  keyMode: KeyMode;
  apiKey: string;
  quirks: LineView['quirks'];
  anthropicVersion: string;
  apiKeyEnv: string;
}

function from(l: LineView): Form {
  return {
    baseUrl: l.baseUrl,
    picks: l.models.map((id) => (l.modelMap[id] ? { id, upstream: l.modelMap[id] } : { id })),
    pricing: { free: false, input: '', output: '' },
    priority: String(l.priority),
    weight: String(l.weight),
    rpm: l.rpm === null ? '' : String(l.rpm),
    keyMode: l.apiKeySource,
    apiKey: '',
    quirks: l.quirks,
    anthropicVersion: l.anthropicVersion ?? '',
    apiKeyEnv: l.apiKeyEnv ?? '',
  };
}

const same = (a: ModelPick[], b: ModelPick[]): boolean =>
  a.length === b.length && a.every((p, i) => p.id === b[i]!.id && p.upstream === b[i]!.upstream);

/**
 * Changes what the admin API lets change, where the key comes from included; only fields that
 * differ are sent. A new API key replaces the stored one. Shown in components/crud.tsx's ItemDialog.
 */
export function EditLineForm({ line, onClose }: { line: LineView; onClose(): void }) {
  const [f, setF] = useState<Form>(() => from(line));
  const storage = useKeyStorage();
  const models = useModels();
  const toast = useToast();
  const catalogue = models.data?.map((m) => m.id) ?? [];
  const known = new Set(catalogue);
  const newIds = f.picks.map((p) => p.id).filter((id) => !known.has(id) && !line.models.includes(id));
  const save = useDialogForm({
    schema: UpdateLineBody,
    words: LINE_WORDS,
    serverFields: lineErrors,
    placeOf: placeOfLine,
    send: (body: UpdateLineBody) => admin.call('updateLine', { params: { name: line.name }, body }),
    invalidates: [qk.lines, qk.models],
    done: (r) => `Line "${r.line.name}" saved.`,
  });
  const at = save.errors.at;

  const submit = (): void => {
    const body: UpdateLineBody = {};
    const problems: LineErrors = {};
    const priority = Number(f.priority);
    const weight = Number(f.weight);
    const rpm = f.rpm.trim() === '' ? null : Number(f.rpm);
    if (!Number.isInteger(priority)) problems.form = 'Priority is a whole number (higher is tried first).';
    if (!Number.isInteger(weight) || weight < 0) problems.form = 'Weight is a whole number, 0 or more.';
    if (rpm !== null && !(Number.isInteger(rpm) && rpm >= 1))
      problems.form = 'Requests per minute is a whole number, 1 or more (or empty for no limit).';
    if (f.picks.length === 0) problems.models = 'A line serves at least one model.';
    if (f.keyMode === 'keychain' && line.apiKeySource !== 'keychain' && !f.apiKey)
      problems.key = 'Paste the API key to keep in the keychain.';
    if (f.keyMode === 'env' && !f.apiKeyEnv.trim()) problems.key = 'Name the environment variable that holds the key.';
    const input = tryParseUsd(f.pricing.input);
    const output = tryParseUsd(f.pricing.output);
    if (newIds.length > 0 && !f.pricing.free && (input === undefined || output === undefined))
      problems.prices = 'Give the input and output price in dollars per million tokens, or choose Free.';
    if (!save.errors.show(problems)) return;
    if (f.baseUrl !== line.baseUrl) body.baseUrl = f.baseUrl.trim();
    const before = from(line).picks;
    if (!same(f.picks, before)) {
      body.models = f.picks.map((p) => p.id);
      body.modelMap = Object.fromEntries(f.picks.filter((p) => p.upstream).map((p) => [p.id, p.upstream!]));
      if (newIds.length > 0)
        body.addModels = f.pricing.free ? { free: true } : { prices: { input: input!, output: output! } };
    }
    if (priority !== line.priority) body.priority = priority;
    if (weight !== line.weight) body.weight = weight;
    if (rpm !== line.rpm) body.rpm = rpm;
    if (f.keyMode === 'keychain' && f.apiKey) body.apiKey = f.apiKey;
    else if (f.keyMode === 'env' && (line.apiKeySource !== 'env' || f.apiKeyEnv.trim() !== line.apiKeyEnv))
      body.apiKeyEnv = f.apiKeyEnv.trim();
    else if (f.keyMode === 'none' && line.apiKeySource !== 'none') body.apiKeyEnv = null;
    if (JSON.stringify(f.quirks) !== JSON.stringify(line.quirks)) body.quirks = f.quirks;
    if (line.protocol === 'anthropic' && f.anthropicVersion.trim() !== (line.anthropicVersion ?? ''))
      body.anthropicVersion = f.anthropicVersion.trim() === '' ? null : f.anthropicVersion.trim();
    save.submit(body, {
      onSent: (r) => {
        for (const w of r.warnings ?? []) toast.show(w, 'error');
        onClose();
      },
    });
  };

  return (
    <DialogForm errors={save.errors} busy={save.busy} onSubmit={submit} onCancel={onClose} submitLabel="Save">
      <Field label="Base URL" htmlFor="edit-url" error={at('baseUrl')}>
        <input id="edit-url" value={f.baseUrl} onChange={(e) => setF({ ...f, baseUrl: e.target.value })} />
      </Field>
      <Field label="Models" htmlFor="edit-models" error={at('models')} hint="Catalogue ids complete as you type.">
        <ModelPicker
          inputId="edit-models"
          picks={f.picks}
          onChange={(picks) => setF({ ...f, picks })}
          catalogue={catalogue}
        />
      </Field>
      {newIds.length > 0 ? (
        <NewModelPricing
          ids={newIds}
          pricing={f.pricing}
          onChange={(pricing) => setF({ ...f, pricing })}
          error={at('prices')}
        />
      ) : null}
      <div className="form-grid form-grid-3">
        <Field label="Priority" htmlFor="edit-priority">
          <input
            id="edit-priority"
            inputMode="numeric"
            value={f.priority}
            onChange={(e) => setF({ ...f, priority: e.target.value })}
          />
        </Field>
        <Field label="Weight" htmlFor="edit-weight">
          <input
            id="edit-weight"
            inputMode="numeric"
            value={f.weight}
            onChange={(e) => setF({ ...f, weight: e.target.value })}
          />
        </Field>
        <Field label="Requests / minute" htmlFor="edit-rpm">
          <input
            id="edit-rpm"
            inputMode="numeric"
            placeholder="no limit"
            value={f.rpm}
            onChange={(e) => setF({ ...f, rpm: e.target.value })}
          />
        </Field>
      </div>
      <VendorFields
        line={line}
        quirks={f.quirks}
        version={f.anthropicVersion}
        onQuirks={(quirks) => setF({ ...f, quirks })}
        onVersion={(anthropicVersion) => setF({ ...f, anthropicVersion })}
      />
      <KeySourceField
        mode={f.keyMode}
        onMode={(keyMode) => setF({ ...f, keyMode })}
        apiKey={f.apiKey}
        onApiKey={(apiKey) => setF({ ...f, apiKey })}
        apiKeyEnv={f.apiKeyEnv}
        onApiKeyEnv={(apiKeyEnv) => setF({ ...f, apiKeyEnv })}
        keychainReason={
          storage.data?.keychain === false && line.apiKeySource !== 'keychain' ? storage.data.keychainReason : null
        }
        error={at('key')}
        keepHint={line.apiKeySource === 'keychain'}
      />
    </DialogForm>
  );
}
