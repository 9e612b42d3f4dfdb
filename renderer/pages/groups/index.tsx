import { admin, type GroupView } from '../../lib/api.js';
import { ItemDialog, RemoveConfirm, useCrud } from '../../components/crud.js';
import { AddGroupDialog, GroupForm } from './group-form.js';
import { RowMenu } from '../../components/menu.js';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { NewButton, PageHeader } from '../../components/ui.js';
import { qk, useGroups, useKeys } from '../../lib/queries.js';

export function Groups() {
  const groups = useGroups();
  const keys = useKeys();
  const crud = useCrud({
    call: (g: GroupView) => admin.call('removeGroup', { params: { name: g.name } }).then((r) => r.group),
    invalidates: [qk.groups],
    done: (g) => `Group "${g.name}" removed.`,
  });
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
            { label: 'Edit…', onSelect: () => crud.edit(g) },
            { label: 'Remove…', danger: true, disabled: g.name === 'default', onSelect: () => crud.askRemove(g) },
          ]}
        />
      ),
    },
  ];
  return (
    <>
      <PageHeader title="Groups" subtitle="A key's group decides which models it may use and multiplies their prices.">
        <NewButton label="Add group" onNew={() => crud.setAdding(true)} />
      </PageHeader>
      <DataTable
        label="Groups"
        data={groups.data}
        columns={columns}
        getRowId={(g) => g.name}
        rowProps={(g) => ({ 'data-group': g.name })}
        initialSort={[{ id: 'name', desc: false }]}
      />
      <AddGroupDialog open={crud.adding} onOpenChange={crud.setAdding} />
      <ItemDialog item={crud.editing} title={(g) => `Edit group "${g.name}"`} onClose={crud.closeEdit}>
        {(g) => <GroupForm key={g.name} group={g} onDone={crud.closeEdit} />}
      </ItemDialog>
      <RemoveConfirm crud={crud} title={(g) => `Remove group "${g.name}"?`} confirmLabel="Remove group">
        Only a group no key uses can be removed; move its keys to another group first.
      </RemoveConfirm>
    </>
  );
}
