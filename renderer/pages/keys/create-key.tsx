import { useState } from 'react';
import { admin, type CreatedKey } from '../../lib/api.js';
import { CreateKeyBody } from '../../../gateway/contract/admin/schemas.js';
import { Dialog } from '../../components/dialog.js';
import { Field } from '../../components/ui.js';
import { DialogForm, useDialogForm } from '../../components/crud.js';
import { qk } from '../../lib/queries.js';
import { EMPTY_SETTINGS, forCreate, KEY_WORDS, SettingsFields, readSettings, changedFields } from './key-settings.js';

interface Props {
  open: boolean;
  onOpenChange(open: boolean): void;
  onCreated(created: CreatedKey): void;
}

export function CreateKeyDialog({ open, onOpenChange, onCreated }: Props) {
  const [name, setName] = useState('');
  const [settings, setSettings] = useState(EMPTY_SETTINGS);
  // No toast: the secret's own dialog opens instead.
  const create = useDialogForm({
    schema: CreateKeyBody,
    words: KEY_WORDS,
    serverFields: { name_taken: 'name' },
    send: (body: CreateKeyBody) => admin.call('createKey', { body }),
    invalidates: [qk.keys],
  });
  const { errors } = create;

  const submit = (): void => {
    const { settings: parsed, problems } = readSettings(settings);
    const body = { name, ...(parsed ? forCreate(parsed) : {}) };
    if (!parsed) return void errors.check(body, problems);
    create.submit(body, {
      own: problems,
      onSent: (created) => {
        setName('');
        setSettings(EMPTY_SETTINGS);
        errors.reset();
        onCreated(created);
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Create a key">
      <DialogForm
        errors={errors}
        busy={create.busy}
        onSubmit={submit}
        onCancel={() => onOpenChange(false)}
        submitLabel="Create key"
      >
        <Field
          label="Name"
          htmlFor="key-name"
          hint="One per tool or machine, e.g. laptop-claude. Unique."
          error={errors.at('name')}
        >
          <input
            id="key-name"
            required
            autoComplete="off"
            maxLength={64}
            value={name}
            onChange={(e) => (setName(e.target.value), errors.clear('name'))}
            autoFocus
          />
        </Field>
        <SettingsFields
          form={settings}
          onChange={(next) => (changedFields(settings, next).forEach(errors.clear), setSettings(next))}
          idPrefix="key"
          keyName={name}
          errorAt={(f) => errors.at(f)}
        />
      </DialogForm>
    </Dialog>
  );
}
