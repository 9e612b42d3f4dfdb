import { useState, type FormEvent } from 'react';
import { admin, AdminError, type CreateGroupBody, type GroupView } from '../../lib/api.js';
import { ModelPicker, type ModelPick } from '../../components/model-picker.js';
import { Confirm, Dialog } from '../../components/dialog.js';
import { RowMenu } from '../../components/menu.js';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { Field, FormFooter, NewButton, PageHeader } from '../../components/ui.js';
import { qk, useGroups, useKeys, useModels } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';

export function Groups() {
  const groups = useGroups();
  const keys = useKeys();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<GroupView | null>(null);
  const [removing, setRemoving] = useState<GroupView | null>(null);
  const remove = useAction(
    (name: string) => admin.call('removeGroup', { params: { name } }).then((r) => r.group),
    [qk.groups],
    (g) => (setRemoving(null), `Group "${g.name}" removed.`),
  );
  const keyCount = (name: string): number | undefined => keys.data?.filter((k) => k.group === name).length;
  const columns: DataColumn<GroupView>[] = [
    {
      id: 'name',
      header: 'Name',
      accessorFn: (g) => g.name,
      sortingFn: 'text',
      cell: ({ getValue }) => <strong>{getValue<string>()}</strong>,
    },
    {
      id: 'multiplier',
      header: 'Multiplier',
      accessorFn: (g) => Number(g.multiplier),
      cell: ({ row }) => `×${row.original.multiplier}`,
      meta: { numeric: true, className: 'mono' },
    },
    {
      id: 'models',
      header: 'Models',
      // All models counts as more than any list.
      accessorFn: (g) => (g.models.includes('*') ? Infinity : g.models.length),
      cell: ({ row: { original: g } }) =>
        g.models.includes('*') ? (
          <span className="muted">all models</span>
        ) : (
          g.models.map((m) => (
            <code key={m} className="tag">
              {m}
            </code>
          ))
        ),
    },
    {
      id: 'keys',
      header: 'Keys',
      accessorFn: (g) => keyCount(g.name) ?? -1,
      cell: ({ row }) => keyCount(row.original.name) ?? '—',
      meta: { numeric: true, className: 'mono' },
    },
    {
      id: 'actions',
      header: 'Actions',
      enableSorting: false,
      meta: { srHeader: true, className: 'actions' },
      cell: ({ row: { original: g } }) => (
        <RowMenu
          label={`Actions for group ${g.name}`}
          items={[
            { label: 'Edit…', onSelect: () => setEditing(g) },
            { label: 'Remove…', danger: true, disabled: g.name === 'default', onSelect: () => setRemoving(g) },
          ]}
        />
      ),
    },
  ];
  return (
    <>
      <PageHeader title="Groups" subtitle="A key's group decides which models it may use and multiplies their prices.">
        <NewButton label="Add group" onNew={() => setAdding(true)} />
      </PageHeader>
      <DataTable
        label="Groups"
        data={groups.data}
        columns={columns}
        getRowId={(g) => g.name}
        rowProps={(g) => ({ 'data-group': g.name })}
        initialSort={[{ id: 'name', desc: false }]}
      />
      <AddGroupDialog open={adding} onOpenChange={setAdding} />
      <Dialog
        open={editing !== null}
        onOpenChange={(o) => !o && setEditing(null)}
        title={`Edit group "${editing?.name ?? ''}"`}
      >
        {editing ? <GroupForm key={editing.name} group={editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
      <Confirm
        open={removing !== null}
        onOpenChange={(o) => !o && setRemoving(null)}
        title={`Remove group "${removing?.name ?? ''}"?`}
        confirmLabel="Remove group"
        busy={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing.name)}
      >
        Only a group no key uses can be removed; move its keys to another group first.
      </Confirm>
    </>
  );
}

function AddGroupDialog({ open, onOpenChange }: { open: boolean; onOpenChange(o: boolean): void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Add a group">
      <GroupForm onDone={() => onOpenChange(false)} />
    </Dialog>
  );
}

/** The refusals that belong to one field of the form. */
const FIELD_OF: Record<string, 'name' | 'multiplier' | 'models'> = {
  name_taken: 'name',
  bad_multiplier: 'multiplier',
  bad_models: 'models',
  unknown_model: 'models',
};

/** Adds a group, or edits `group` (its name stays). An empty model list means all models. */
function GroupForm({ group, onDone }: { group?: GroupView; onDone(): void }) {
  const models = useModels();
  const [name, setName] = useState(group?.name ?? '');
  const [multiplier, setMultiplier] = useState(group?.multiplier ?? '1');
  const [picks, setPicks] = useState<ModelPick[]>(
    group && !group.models.includes('*') ? group.models.map((id) => ({ id })) : [],
  );
  const save = useAction(
    (body: CreateGroupBody) =>
      (group
        ? admin.call('updateGroup', {
            params: { name: group.name },
            body: { multiplier: body.multiplier, models: body.models ?? ['*'] },
          })
        : admin.call('addGroup', { body })
      ).then((r) => r.group),
    [qk.groups],
    (g) => `Group "${g.name}" ${group ? 'saved' : 'added'}.`,
    { inline: true },
  );
  const err = save.error instanceof AdminError ? save.error : null;
  const at = (field: 'name' | 'multiplier' | 'models'): string | undefined =>
    err && FIELD_OF[err.code] === field ? err.message : undefined;
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const ids = picks.map((p) => p.id);
    save.mutate(
      { name: name.trim(), multiplier: multiplier.trim(), ...(ids.length > 0 ? { models: ids } : {}) },
      { onSuccess: onDone },
    );
  };
  return (
    <form className="form" onSubmit={submit} autoComplete="off">
      {group ? null : (
        <Field label="Name" htmlFor="group-name" error={at('name')}>
          <input id="group-name" required autoFocus value={name} onChange={(e) => setName(e.target.value)} />
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
          onChange={(e) => setMultiplier(e.target.value)}
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
      <FormFooter
        error={err && FIELD_OF[err.code] ? null : save.error}
        onCancel={onDone}
        busy={save.isPending}
        submitLabel={group ? 'Save' : 'Add group'}
      />
    </form>
  );
}
