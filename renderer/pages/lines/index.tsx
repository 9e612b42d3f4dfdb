import { useState } from 'react';
import { admin, type LineView } from '../../lib/api.js';
import { ItemDialog, RemoveConfirm, useCrud } from '../../components/crud.js';
import { DataTable } from '../../components/data-table.js';
import { Empty, NewButton, PageHeader } from '../../components/ui.js';
import { qk, useKeyStorage, useLineUsage, useLines } from '../../lib/queries.js';
import { lineColumns, type LineTest } from './columns.js';
import './lines.css';
import { useAction } from '../../components/use-action.js';
import { AddLineDialog } from './add-line.js';
import { EditLineForm } from './edit-line.js';

export function Lines() {
  const lines = useLines();
  const usage = useLineUsage();
  const usageOf = new Map(usage.data?.lines.map((u) => [u.line, u]) ?? []);
  // Asked now, so the Add-line dialog knows from its first paint whether the keychain can be offered.
  useKeyStorage();
  const [tests, setTests] = useState<Record<string, LineTest>>({});
  const toggle = useAction(
    (a: { name: string; enabled: boolean }) =>
      admin.call('updateLine', { params: { name: a.name }, body: { enabled: a.enabled } }).then((r) => r.line),
    [qk.lines, qk.models],
    (l) => `Line "${l.name}" ${l.enabled ? 'enabled' : 'disabled'}.`,
  );
  const crud = useCrud({
    call: (l: LineView) => admin.call('removeLine', { params: { name: l.name } }).then((r) => r.line),
    invalidates: [qk.lines, qk.models],
    done: (l) => `Line "${l.name}" removed.`,
  });

  const test = (name: string): void => {
    setTests((t) => ({ ...t, [name]: 'running' }));
    admin.call('testLine', { params: { name } }).then(
      (r) => setTests((t) => ({ ...t, [name]: r })),
      (err: Error) =>
        setTests((t) => ({ ...t, [name]: { ok: false, status: null, latencyMs: 0, message: err.message } })),
    );
  };

  return (
    <>
      <PageHeader
        title="Lines"
        subtitle="Upstream providers that serve catalogue models. Higher priority is tried first; failures move on to the next line."
      >
        <NewButton label="Add line" onNew={() => crud.setAdding(true)} />
      </PageHeader>
      {lines.data && lines.data.length === 0 ? (
        <Empty title="No lines yet">
          <p>
            Add a provider from a preset (OpenAI, Anthropic, Google, OpenRouter, a local Ollama…). Its API key goes to
            the OS keychain.
          </p>
          <button type="button" className="button button-primary" onClick={() => crud.setAdding(true)}>
            Add line
          </button>
        </Empty>
      ) : (
        <DataTable
          label="Lines"
          data={lines.data}
          columns={lineColumns({
            tests,
            usageOf,
            at: lines.dataUpdatedAt,
            onToggle: (name, enabled) => toggle.mutate({ name, enabled }),
            onTest: test,
            onEdit: crud.edit,
            onRemove: crud.askRemove,
          })}
          getRowId={(l) => l.id}
          rowProps={(l) => ({ 'data-line': l.name, className: l.enabled ? undefined : 'row-off' })}
          skeletonRows={3}
        />
      )}
      {Object.entries(tests).map(([name, t]) =>
        t !== 'running' && !t.ok ? (
          <p key={name} className="error-note">
            <strong>{name}</strong>: {t.message}
          </p>
        ) : null,
      )}
      <AddLineDialog open={crud.adding} onOpenChange={crud.setAdding} />
      <ItemDialog item={crud.editing} title={(l) => `Edit line "${l.name}"`} onClose={crud.closeEdit} wide>
        {(l) => <EditLineForm key={l.id} line={l} onClose={crud.closeEdit} />}
      </ItemDialog>
      <RemoveConfirm crud={crud} title={(l) => `Remove line "${l.name}"?`} confirmLabel="Remove line">
        Its models are no longer served through it, and its API key is deleted from the OS keychain.
      </RemoveConfirm>
    </>
  );
}
