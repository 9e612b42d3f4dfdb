import { useState } from 'react';
import { admin, type CreatedKey, type KeyView } from '../../lib/api.js';
import { CLIPBOARD_REFUSED } from '../../components/copy.js';
import { DataTable } from '../../components/data-table.js';
import { ItemDialog, RemoveConfirm, useCrud } from '../../components/crud.js';
import { useToast } from '../../components/toast.js';
import { Empty, NewButton, PageHeader } from '../../components/ui.js';
import { copyText } from '../../lib/clipboard.js';
import { qk, useKeys } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { forgetSecret } from '../../lib/secret-memory.js';
import { keyColumns } from './columns.js';
import { CreateKeyDialog } from './create-key.js';
import { EditKeyForm } from './edit-key.js';
import { SecretDialog } from './secret-dialog.js';
import { useKeyUsage } from './use-key-usage.js';
import './keys.css';

export function Keys() {
  const keys = useKeys();
  const usage = useKeyUsage();
  const toast = useToast();
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const toggle = useAction(
    (a: { name: string; enabled: boolean }) =>
      admin.call(a.enabled ? 'enableKey' : 'disableKey', { params: { name: a.name } }).then((r) => r.key),
    [qk.keys],
    (k) => `Key "${k.name}" ${k.state}.`,
  );
  const crud = useCrud({
    call: (k: KeyView) => admin.call('deleteKey', { params: { name: k.name } }).then((r) => r.key),
    invalidates: [qk.keys],
    done: (k) => {
      forgetSecret(k.name);
      return `Key "${k.name}" deleted.`;
    },
  });

  const columns = keyColumns({
    usage,
    toggling: toggle.isPending,
    toggle: (name, enabled) => toggle.mutate({ name, enabled }),
    menu: (k) => [
      { label: 'Edit…', onSelect: () => crud.edit(k) },
      {
        label: k.state === 'enabled' ? 'Disable' : 'Enable',
        onSelect: () => toggle.mutate({ name: k.name, enabled: k.state !== 'enabled' }),
      },
      {
        label: 'Copy key id',
        onSelect: () =>
          void copyText(k.id).then(
            () => toast.show(`Copied the id of key "${k.name}".`),
            () => toast.show(CLIPBOARD_REFUSED, 'error'),
          ),
      },
      { label: 'Delete…', danger: true, onSelect: () => crud.askRemove(k) },
    ],
  });

  return (
    <>
      <PageHeader
        title="Keys"
        subtitle="Tools authenticate with these sk- keys. Tollgate keeps only a hash; a secret is shown once, at creation."
      >
        <NewButton label="Create key" onNew={() => crud.setAdding(true)} />
      </PageHeader>
      <DataTable
        label="Keys"
        data={keys.data}
        columns={columns}
        getRowId={(k) => k.id}
        rowProps={(k) => ({ 'data-key': k.name, className: k.state === 'disabled' ? 'row-off' : undefined })}
        className="keys-table"
        skeletonRows={3}
        virtual={{ rowHeight: 42, maxHeight: 'calc(100vh - 200px)' }}
        empty={
          <Empty title="No keys yet">
            <p>Create one for each tool or machine, so you can see its spend and turn it off on its own.</p>
            <button type="button" className="button button-primary" onClick={() => crud.setAdding(true)}>
              Create key
            </button>
          </Empty>
        }
      />
      <CreateKeyDialog
        open={crud.adding}
        onOpenChange={crud.setAdding}
        onCreated={(c) => (crud.setAdding(false), setCreated(c))}
      />
      <SecretDialog created={created} onClose={() => setCreated(null)} />
      <ItemDialog item={crud.editing} title={(k) => `Edit key "${k.name}"`} onClose={crud.closeEdit}>
        {(k) => <EditKeyForm key={k.id} k={k} onClose={crud.closeEdit} />}
      </ItemDialog>
      <RemoveConfirm crud={crud} title={(k) => `Delete key "${k.name}"?`} confirmLabel="Delete key">
        Tools using it get 401 from now on. Its log rows and spend stay. This cannot be undone; to pause a key, disable
        it instead.
      </RemoveConfirm>
    </>
  );
}
