import { useState, type FormEvent } from 'react';
import { admin, type CreatedKey } from '../../lib/api.js';
import { CreateKeyBody } from '../../../gateway/contract/admin/schemas.js';
import { Dialog } from '../../components/dialog.js';
import { Field, FormFooter } from '../../components/ui.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { useFormErrors } from '../../components/use-form.js';
import { EMPTY_SETTINGS, forCreate, KEY_WORDS, SettingsFields, readSettings, changedFields } from './key-settings.js';

interface Props {
  open: boolean;
  onOpenChange(open: boolean): void;
  onCreated(created: CreatedKey): void;
}

export function CreateKeyDialog({ open, onOpenChange, onCreated }: Props) {
  const [name, setName] = useState('');
  const [settings, setSettings] = useState(EMPTY_SETTINGS);
  const create = useAction((body: CreateKeyBody) => admin.call('createKey', { body }), [qk.keys]);
  const form = useFormErrors(CreateKeyBody, KEY_WORDS, { error: create.error, serverFields: { name_taken: 'name' } });

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const { settings: parsed, problems } = readSettings(settings);
    const body = { name, ...(parsed ? forCreate(parsed) : {}) };
    if (!form.check(body, problems) || !parsed) return;
    create.mutate(body, {
      onSuccess: (created) => {
        setName('');
        setSettings(EMPTY_SETTINGS);
        form.reset();
        onCreated(created);
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Create a key">
      <form className="form" onSubmit={submit}>
        <Field
          label="Name"
          htmlFor="key-name"
          hint="One per tool or machine, e.g. laptop-claude. Unique."
          error={form.at('name')}
        >
          <input
            id="key-name"
            required
            autoComplete="off"
            maxLength={64}
            value={name}
            onChange={(e) => (setName(e.target.value), form.clear('name'))}
            autoFocus
          />
        </Field>
        <SettingsFields
          form={settings}
          onChange={(next) => (changedFields(settings, next).forEach(form.clear), setSettings(next))}
          idPrefix="key"
          keyName={name}
          errorAt={(f) => form.at(f)}
        />
        <FormFooter
          error={form.rest}
          onCancel={() => onOpenChange(false)}
          busy={create.isPending}
          submitLabel="Create key"
        />
      </form>
    </Dialog>
  );
}
