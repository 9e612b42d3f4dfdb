import { useState, type FormEvent } from 'react';
import { admin, type LineView, type UpdateLineBody } from '../../lib/api.js';
import { Dialog } from '../../components/dialog.js';
import { Field, FormFooter } from '../../components/ui.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { formatModels, parseModels } from './models-field.js';
import { VendorFields } from './vendor-fields.js';

interface Form {
  baseUrl: string;
  models: string;
  priority: string;
  weight: string;
  rpm: string;
  apiKey: string;
  quirks: LineView['quirks'];
  anthropicVersion: string;
}

function from(l: LineView): Form {
  return {
    baseUrl: l.baseUrl,
    models: formatModels(l.models, l.modelMap),
    priority: String(l.priority),
    weight: String(l.weight),
    rpm: l.rpm === null ? '' : String(l.rpm),
    apiKey: '',
    quirks: l.quirks,
    anthropicVersion: l.anthropicVersion ?? '',
  };
}

/** Changes what the admin API lets change; only fields that differ are sent. A new API key replaces the stored one. */
export function EditLineDialog({ line, onClose }: { line: LineView | null; onClose(): void }) {
  return (
    <Dialog open={line !== null} onOpenChange={(o) => !o && onClose()} title={`Edit line "${line?.name ?? ''}"`} wide>
      {line ? <EditLineForm key={line.id} line={line} onClose={onClose} /> : null}
    </Dialog>
  );
}

function EditLineForm({ line, onClose }: { line: LineView; onClose(): void }) {
  const [f, setF] = useState<Form>(() => from(line));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(
    (a: { name: string; body: UpdateLineBody }) =>
      admin.call('updateLine', { params: { name: a.name }, body: a.body }).then((r) => r.line),
    [qk.lines, qk.models],
    (l) => `Line "${l.name}" saved.`,
  );

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const body: UpdateLineBody = {};
    const priority = Number(f.priority);
    const weight = Number(f.weight);
    const rpm = f.rpm.trim() === '' ? null : Number(f.rpm);
    if (
      !Number.isInteger(priority) ||
      !Number.isInteger(weight) ||
      weight < 0 ||
      (rpm !== null && !(Number.isInteger(rpm) && rpm >= 1))
    ) {
      setProblem(
        'Priority is a whole number, weight a whole number of 0 or more, requests per minute 1 or more (or empty).',
      );
      return;
    }
    setProblem(null);
    if (f.baseUrl !== line.baseUrl) body.baseUrl = f.baseUrl.trim();
    const parsed = parseModels(f.models);
    if (formatModels(parsed.models, parsed.modelMap) !== formatModels(line.models, line.modelMap)) {
      body.models = parsed.models;
      body.modelMap = parsed.modelMap;
    }
    if (priority !== line.priority) body.priority = priority;
    if (weight !== line.weight) body.weight = weight;
    if (rpm !== line.rpm) body.rpm = rpm;
    if (f.apiKey) body.apiKey = f.apiKey;
    if (JSON.stringify(f.quirks) !== JSON.stringify(line.quirks)) body.quirks = f.quirks;
    if (line.protocol === 'anthropic' && f.anthropicVersion.trim() !== (line.anthropicVersion ?? ''))
      body.anthropicVersion = f.anthropicVersion.trim() === '' ? null : f.anthropicVersion.trim();
    save.mutate({ name: line.name, body }, { onSuccess: onClose });
  };

  return (
    <form className="form" onSubmit={submit} autoComplete="off">
      <Field label="Base URL" htmlFor="edit-url">
        <input id="edit-url" value={f.baseUrl} onChange={(e) => setF({ ...f, baseUrl: e.target.value })} />
      </Field>
      <Field label="Models" htmlFor="edit-models" hint="Catalogue ids, comma-separated; id=upstream-id to map one.">
        <textarea
          id="edit-models"
          rows={3}
          className="mono"
          value={f.models}
          onChange={(e) => setF({ ...f, models: e.target.value })}
        />
      </Field>
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
      <Field
        label="Replace the API key"
        htmlFor="edit-key"
        hint={`Now: ${line.apiKeySource === 'keychain' ? 'a key in the OS keychain (never shown)' : line.apiKeySource === 'env' ? `the variable ${line.apiKeyEnv}` : 'no key'}. Leave empty to keep it.`}
      >
        <input
          id="edit-key"
          type="password"
          placeholder="new key (write-only)"
          value={f.apiKey}
          onChange={(e) => setF({ ...f, apiKey: e.target.value })}
        />
      </Field>
      <FormFooter problem={problem} error={save.error} onCancel={onClose} busy={save.isPending} submitLabel="Save" />
    </form>
  );
}
