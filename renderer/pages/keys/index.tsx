import { useState } from 'react';
import { admin, type CreatedKey, type KeyView } from '../../lib/api.js';
import { CLIPBOARD_REFUSED } from '../../components/copy.js';
import { Confirm } from '../../components/dialog.js';
import { RowMenu } from '../../components/menu.js';
import { useToast } from '../../components/toast.js';
import { Badge, Empty, NewButton, PageHeader, QuotaBar, Switch } from '../../components/ui.js';
import { copyText } from '../../lib/clipboard.js';
import { ago, date } from '../../lib/format.js';
import { Link } from 'react-router';
import { PLAYGROUND_MADE_BY } from '../../../gateway/contract/admin/index.js';
import { isToolId, TOOL_NAMES } from '../../../gateway/contract/sessions.js';
import { Usd } from '../../components/money.js';
import { Sparkline } from './sparkline.js';
import { useKeyUsage, USAGE_DAYS } from './use-key-usage.js';
import './keys.css';
import { qk, useKeys } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { forgetSecret } from '../../lib/secret-memory.js';
import { CreateKeyDialog } from './create-key.js';
import { EditKeyDialog } from './edit-key.js';
import { SecretDialog } from './secret-dialog.js';
import { guardsSummary } from './session-guards.js';

function expired(k: KeyView): boolean {
  return k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();
}

/** A quota spent: the gateway refuses the key's requests (402) until the quota is raised. */
function blocked(k: KeyView): boolean {
  return k.quotaMicro !== null && k.usedMicro >= k.quotaMicro;
}

/** The badge of a key something other than a person made: the tool Connect made it for, or the Playground. */
function madeByLabel(madeBy: string): string {
  return madeBy === PLAYGROUND_MADE_BY ? 'Playground' : isToolId(madeBy) ? TOOL_NAMES[madeBy] : madeBy;
}

export function Keys() {
  const keys = useKeys();
  const usage = useKeyUsage();
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [deleting, setDeleting] = useState<KeyView | null>(null);
  const [editing, setEditing] = useState<KeyView | null>(null);
  const toggle = useAction(
    (a: { name: string; enabled: boolean }) =>
      admin.call(a.enabled ? 'enableKey' : 'disableKey', { params: { name: a.name } }).then((r) => r.key),
    [qk.keys],
    (k) => `Key "${k.name}" ${k.state}.`,
  );
  const remove = useAction(
    (name: string) => admin.call('deleteKey', { params: { name } }).then((r) => r.key),
    [qk.keys],
    (k) => {
      forgetSecret(k.name);
      setDeleting(null);
      return `Key "${k.name}" deleted.`;
    },
  );

  return (
    <>
      <PageHeader
        title="Keys"
        subtitle="Tools authenticate with these sk- keys. Tollgate keeps only a hash; a secret is shown once, at creation."
      >
        <NewButton label="Create key" onNew={() => setCreating(true)} />
      </PageHeader>
      {keys.data && keys.data.length === 0 ? (
        <Empty title="No keys yet">
          <p>Create one for each tool or machine, so you can see its spend and turn it off on its own.</p>
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create key
          </button>
        </Empty>
      ) : (
        <div className="table-wrap keys-page">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">On</th>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Group</th>
                <th scope="col">Last used</th>
                <th scope="col">Spend, {USAGE_DAYS} days</th>
                <th scope="col">Spend / quota</th>
                <th scope="col">Limits</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.map((k) => (
                <tr key={k.id} data-key={k.name} className={k.state === 'disabled' ? 'row-off' : ''}>
                  <td>
                    <Switch
                      checked={k.state === 'enabled'}
                      label={`Key ${k.name} enabled`}
                      disabled={toggle.isPending}
                      onChange={(enabled) => toggle.mutate({ name: k.name, enabled })}
                    />
                  </td>
                  <td className="key-name">
                    <Link
                      className="key-link"
                      to={`/logs?key=${encodeURIComponent(k.name)}`}
                      title={`The usage log of key ${k.name}`}
                    >
                      {k.name}
                    </Link>{' '}
                    {k.madeBy ? (
                      <span
                        data-testid="key-made-by"
                        title={k.madeBy === PLAYGROUND_MADE_BY ? 'Made by the Playground' : 'Made by Connect'}
                      >
                        <Badge tone="info">{madeByLabel(k.madeBy)}</Badge>
                      </span>
                    ) : null}{' '}
                    {k.state === 'disabled' ? <Badge tone="muted">disabled</Badge> : null}{' '}
                    {expired(k) ? <Badge tone="bad">expired</Badge> : null}{' '}
                    {blocked(k) ? (
                      <span
                        data-testid="key-blocked"
                        title="Its quota is spent: requests with it are refused (402) until the quota is raised."
                      >
                        <Badge tone="bad">blocked: quota spent</Badge>
                      </span>
                    ) : null}
                  </td>
                  <td className="mono muted nowrap">sk-…{k.last4}</td>
                  <td>{k.group}</td>
                  <KeyUsageCells name={k.name} createdAt={k.createdAt} usage={usage} />
                  <td>
                    <QuotaBar used={k.usedMicro} quota={k.quotaMicro} />
                  </td>
                  <td className="muted">
                    <Limits k={k} />
                  </td>
                  <td className="muted">{k.expiresAt ? date(k.expiresAt) : 'never'}</td>
                  <td className="actions">
                    <RowMenu
                      label={`Actions for key ${k.name}`}
                      items={[
                        { label: 'Edit…', onSelect: () => setEditing(k) },
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
                        { label: 'Delete…', danger: true, onSelect: () => setDeleting(k) },
                      ]}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateKeyDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(c) => (setCreating(false), setCreated(c))}
      />
      <SecretDialog created={created} onClose={() => setCreated(null)} />
      <EditKeyDialog keyView={editing} onClose={() => setEditing(null)} />
      <Confirm
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete key "${deleting?.name ?? ''}"?`}
        confirmLabel="Delete key"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.name)}
      >
        Tools using it get 401 from now on. Its log rows and spend stay. This cannot be undone; to pause a key, disable
        it instead.
      </Confirm>
    </>
  );
}

/** Last used and the period's spend of one key; blank cells (not "never", not $0.00) until the figures arrive. */
function KeyUsageCells({
  name,
  createdAt,
  usage,
}: {
  name: string;
  createdAt: string;
  usage: ReturnType<typeof useKeyUsage>;
}) {
  const u = usage.byName.get(name);
  const created = `created ${date(createdAt)}`;
  if (!u || usage.since === undefined)
    return (
      <>
        <td className="muted" aria-busy={usage.isPending}>
          {usage.isPending ? '' : '—'}
        </td>
        <td aria-busy={usage.isPending} />
      </>
    );
  return (
    <>
      <td
        className="muted"
        data-testid="key-last-used"
        title={u.lastUsedAt === null ? created : `${new Date(u.lastUsedAt).toLocaleString()}; ${created}`}
      >
        {u.lastUsedAt === null ? 'never' : ago(u.lastUsedAt)}
      </td>
      <td data-testid="key-spend">
        <span className="key-spend">
          <Sparkline daily={u.dailyMicro} since={usage.since} total={u.costMicro} />
          <Usd micro={u.costMicro} />
        </span>
      </td>
    </>
  );
}

/** Rate limits and session guards in one cell (the guards on their own line), so the table fits 1280 px. */
function Limits({ k }: { k: KeyView }) {
  const rate = [k.rpm !== null ? `${k.rpm}/min` : null, k.maxConcurrent !== null ? `${k.maxConcurrent} at once` : null]
    .filter(Boolean)
    .join(' · ');
  const guards = guardsSummary(k);
  if (!rate && guards === 'none') return <>none</>;
  return (
    <>
      {rate ? <span className="nowrap">{rate}</span> : null}
      {rate && guards !== 'none' ? <br /> : null}
      {guards !== 'none' ? <span>{guards}</span> : null}
    </>
  );
}
