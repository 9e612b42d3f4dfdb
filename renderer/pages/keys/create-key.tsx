import { useState, type FormEvent } from 'react';
import { admin, type CreatedKey, type CreateKeyBody } from '../../lib/api.js';
import { Dialog } from '../../components/dialog.js';
import { Field, FormFooter } from '../../components/ui.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { EMPTY_SETTINGS, forCreate, parseSettings, SettingsFields } from './key-settings.js';

interface Props {
  open: boolean;
  onOpenChange(open: boolean): void;
  onCreated(created: CreatedKey): void;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

export function CreateKeyDialog({ open, onOpenChange, onCreated }: Props) {
  const [name, setName] = useState('');
  const [settings, setSettings] = useState(EMPTY_SETTINGS);
  const [problem, setProblem] = useState<string | null>(null);
  const create = useAction((body: CreateKeyBody) => admin.call('createKey', { body }), [qk.keys]);

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const parsed = parseSettings(settings);
    const problemText = !NAME.test(name)
      ? 'Name: letters, digits and . _ @ -, starting with a letter or digit.'
      : typeof parsed === 'string'
        ? parsed
        : null;
    setProblem(problemText);
    if (problemText || typeof parsed === 'string') return;
    create.mutate(
      { name, ...forCreate(parsed) },
      {
        onSuccess: (created) => {
          setName('');
          setSettings(EMPTY_SETTINGS);
          onCreated(created);
        },
      },
    );
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Create a key">
      <form className="form" onSubmit={submit}>
        <Field label="Name" htmlFor="key-name" hint="One per tool or machine, e.g. laptop-claude. Unique.">
          <input
            id="key-name"
            required
            autoComplete="off"
            maxLength={64}
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
          />
        </Field>
        <SettingsFields form={settings} onChange={setSettings} idPrefix="key" keyName={name} />
        <FormFooter
          problem={problem}
          error={create.error}
          onCancel={() => onOpenChange(false)}
          busy={create.isPending}
          submitLabel="Create key"
        />
      </form>
    </Dialog>
  );
}
