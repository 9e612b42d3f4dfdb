import { useState, type FormEvent } from 'react';
import { admin, type KeyView } from '../../lib/api.js';
import { UpdateKeyBody } from '../../../gateway/contract/admin/schemas.js';
import { useFormErrors } from '../../components/use-form.js';
import { Dialog } from '../../components/dialog.js';
import { FormFooter } from '../../components/ui.js';
import { qk } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { KEY_WORDS, settingsOf, SettingsFields, readSettings, changedFields } from './key-settings.js';

/** Group, quota, expiry, limits and session guards of an existing key; the secret and the name stay. */
export function EditKeyDialog({ keyView, onClose }: { keyView: KeyView | null; onClose(): void }) {
  return (
    <Dialog open={keyView !== null} onOpenChange={(o) => !o && onClose()} title={`Edit key "${keyView?.name ?? ''}"`}>
      {keyView ? <EditKeyForm key={keyView.id} k={keyView} onClose={onClose} /> : null}
    </Dialog>
  );
}

function EditKeyForm({ k, onClose }: { k: KeyView; onClose(): void }) {
  const [settings, setSettings] = useState(() => settingsOf(k));
  const save = useAction(
    (body: UpdateKeyBody) => admin.call('updateKey', { params: { name: k.name }, body }).then((r) => r.key),
    [qk.keys],
    (key) => `Key "${key.name}" saved.`,
  );
  const form = useFormErrors(UpdateKeyBody, KEY_WORDS, { error: save.error });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const { settings: parsed, problems } = readSettings(settings);
    if (!form.check({ ...parsed }, problems) || !parsed) return;
    // An unchanged expiry is not sent: the form shows only its day.
    const { expiresAt, ...rest } = parsed;
    const sameDay =
      (expiresAt === null && k.expiresAt === null) ||
      (settings.expires !== '' && settingsOf(k).expires === settings.expires);
    save.mutate(sameDay ? rest : parsed, { onSuccess: onClose });
  };
  return (
    <form className="form" onSubmit={submit}>
      <SettingsFields
        form={settings}
        onChange={(next) => (changedFields(settings, next).forEach(form.clear), setSettings(next))}
        idPrefix="edit-key"
        keyName={k.name}
        errorAt={(f) => form.at(f)}
      />
      <FormFooter error={form.rest} onCancel={onClose} busy={save.isPending} submitLabel="Save" />
    </form>
  );
}
