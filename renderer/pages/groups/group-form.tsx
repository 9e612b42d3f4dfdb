/** The form that adds a group or edits one, checked at its fields against the contract's group schema. */
import { useState } from 'react';
import { CreateGroupBody } from '../../../gateway/contract/admin/schemas.js';
import { admin, type GroupView } from '../../lib/api.js';
import { ModelPicker, type ModelPick } from '../../components/model-picker.js';
import { Dialog } from '../../components/dialog.js';
import { Field } from '../../components/ui.js';
import { DialogForm, useDialogForm } from '../../components/crud.js';
import { qk, useModels } from '../../lib/queries.js';
import type { FieldWords } from '../../lib/field-errors.js';

const WORDS: Record<string, FieldWords> = {
  name: {
    label: 'name',
    required: 'Give the group a name.',
    pattern: 'Use letters, digits and . _ @ - only, starting with a letter or digit (no spaces).',
  },
  multiplier: { label: 'price multiplier', pattern: 'Enter a number such as 1 or 1.25, with up to six decimals.' },
  models: { label: 'models' },
};

export function AddGroupDialog({ open, onOpenChange }: { open: boolean; onOpenChange(o: boolean): void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Add a group">
      <GroupForm onDone={() => onOpenChange(false)} />
    </Dialog>
  );
}

/** The refusals that belong to one field of the form. */
const FIELD_OF: Record<string, string> = {
  name_taken: 'name',
  bad_multiplier: 'multiplier',
  bad_models: 'models',
  unknown_model: 'models',
};

/** Adds a group, or edits `group` (its name stays). An empty model list means all models. */
export function GroupForm({ group, onDone }: { group?: GroupView; onDone(): void }) {
  const models = useModels();
  const [name, setName] = useState(group?.name ?? '');
  const [multiplier, setMultiplier] = useState(group?.multiplier ?? '1');
  const [picks, setPicks] = useState<ModelPick[]>(
    group && !group.models.includes('*') ? group.models.map((id) => ({ id })) : [],
  );
  const form = useDialogForm({
    schema: CreateGroupBody,
    words: WORDS,
    serverFields: FIELD_OF,
    send: (body: CreateGroupBody) =>
      (group
        ? admin.call('updateGroup', {
            params: { name: group.name },
            body: { multiplier: body.multiplier, models: body.models ?? ['*'] },
          })
        : admin.call('addGroup', { body })
      ).then((r) => r.group),
    invalidates: [qk.groups],
    done: (g) => `Group "${g.name}" ${group ? 'saved' : 'added'}.`,
  });
  const { at, clear } = form.errors;
  const submit = (): void => {
    const ids = picks.map((p) => p.id);
    const body = { name: name.trim(), multiplier: multiplier.trim(), ...(ids.length > 0 ? { models: ids } : {}) };
    form.submit(body, { onSent: onDone });
  };
  return (
    <DialogForm
      errors={form.errors}
      busy={form.busy}
      onSubmit={submit}
      onCancel={onDone}
      submitLabel={group ? 'Save' : 'Add group'}
    >
      {group ? null : (
        <Field label="Name" htmlFor="group-name" error={at('name')}>
          <input
            id="group-name"
            required
            autoFocus
            value={name}
            onChange={(e) => (setName(e.target.value), clear('name'))}
          />
        </Field>
      )}
      <Field
        label="Price multiplier"
        htmlFor="group-multiplier"
        error={at('multiplier')}
        hint="1 = catalogue prices; 1.2 = 20% more. Up to six decimals."
      >
        <input
          id="group-multiplier"
          inputMode="decimal"
          required
          value={multiplier}
          onChange={(e) => (setMultiplier(e.target.value), clear('multiplier'))}
        />
      </Field>
      <Field label="Models" htmlFor="group-models" hint="Empty for all models." error={at('models')}>
        <ModelPicker
          inputId="group-models"
          picks={picks}
          onChange={setPicks}
          catalogue={models.data?.map((m) => m.id) ?? []}
          placeholder="all models; type a catalogue id, Enter to add"
        />
      </Field>
    </DialogForm>
  );
}
