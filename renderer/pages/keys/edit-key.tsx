import { useState } from 'react';
import { admin, type KeyView } from '../../lib/api.js';
import { UpdateKeyBody } from '../../../gateway/contract/admin/schemas.js';
import { DialogForm, useDialogForm } from '../../components/crud.js';
import { qk } from '../../lib/queries.js';
import { KEY_WORDS, settingsOf, SettingsFields, readSettings, changedFields } from './key-settings.js';

/** Group, quota, expiry, limits and session guards of an existing key; the secret and the name stay. */
export function EditKeyForm({ k, onClose }: { k: KeyView; onClose(): void }) {
  const [settings, setSettings] = useState(() => settingsOf(k));
  const form = useDialogForm({
    schema: UpdateKeyBody,
    words: KEY_WORDS,
    send: (body: UpdateKeyBody) => admin.call('updateKey', { params: { name: k.name }, body }).then((r) => r.key),
    invalidates: [qk.keys],
    done: (key) => `Key "${key.name}" saved.`,
  });
  const submit = (): void => {
    const { settings: parsed, problems } = readSettings(settings);
    if (!parsed) return void form.errors.check({}, problems);
    // An unchanged expiry is not sent: the form shows only its day.
    const { expiresAt, ...rest } = parsed;
    const sameDay =
      (expiresAt === null && k.expiresAt === null) ||
      (settings.expires !== '' && settingsOf(k).expires === settings.expires);
    form.submit(sameDay ? rest : parsed, { own: problems, checked: { ...parsed }, onSent: onClose });
  };
  return (
    <DialogForm errors={form.errors} busy={form.busy} onSubmit={submit} onCancel={onClose} submitLabel="Save">
      <SettingsFields
        form={settings}
        onChange={(next) => (changedFields(settings, next).forEach(form.errors.clear), setSettings(next))}
        idPrefix="edit-key"
        keyName={k.name}
        errorAt={(f) => form.errors.at(f)}
      />
    </DialogForm>
  );
}
