/**
 * The Keys table's columns (components/data-table.tsx): every column but the switch, the secret's
 * last four, the limits and the menu sorts. Last used and the period's spend come from
 * GET /api/keys/usage; until they arrive their cells are skeletons, never "never" or $0.00.
 */
import { Link } from 'react-router';
import { PLAYGROUND_MADE_BY, type KeyView } from '../../../gateway/contract/admin/index.js';
import { isToolId, TOOL_NAMES } from '../../../gateway/contract/sessions.js';
import type { DataColumn } from '../../components/data-table.js';
import { RowMenu, type MenuItem } from '../../components/menu.js';
import { Usd } from '../../components/money.js';
import { Skeleton } from '../../components/skeleton.js';
import { Badge, QuotaBar, Switch } from '../../components/ui.js';
import { ago, date } from '../../lib/format.js';
import { guardsSummary } from './session-guards.js';
import { Sparkline } from './sparkline.js';
import { USAGE_DAYS, type KeyUsage } from './use-key-usage.js';

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

/** What the page hands the columns: the usage figures and what the switch and the menu do. */
export interface KeyColumnsContext {
  usage: KeyUsage;
  toggling: boolean;
  toggle(name: string, enabled: boolean): void;
  menu(k: KeyView): MenuItem[];
}

function NameCell({ k }: { k: KeyView }) {
  return (
    <>
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

export function keyColumns(ctx: KeyColumnsContext): DataColumn<KeyView>[] {
  const { usage } = ctx;
  const created = (k: KeyView): string => `created ${date(k.createdAt)}`;
  return [
    {
      id: 'on',
      header: 'On',
      enableSorting: false,
      cell: ({ row: { original: k } }) => (
        <Switch
          checked={k.state === 'enabled'}
          label={`Key ${k.name} enabled`}
          disabled={ctx.toggling}
          onChange={(enabled) => ctx.toggle(k.name, enabled)}
        />
      ),
    },
    {
      id: 'name',
      header: 'Name',
      accessorFn: (k) => k.name,
      sortingFn: 'text',
      cell: ({ row: { original: k } }) => <NameCell k={k} />,
      meta: { className: 'key-name' },
    },
    {
      id: 'secret',
      header: 'Key',
      enableSorting: false,
      cell: ({ row: { original: k } }) => `sk-…${k.last4}`,
      meta: { className: 'mono muted nowrap' },
    },
    { id: 'group', header: 'Group', accessorFn: (k) => k.group, sortingFn: 'text' },
    {
      id: 'lastUsed',
      header: 'Last used',
      // Never used sorts below any use.
      accessorFn: (k) => usage.byName.get(k.name)?.lastUsedAt ?? -1,
      sortDescFirst: true,
      meta: { className: 'muted nowrap' },
      cell: ({ row: { original: k } }) => {
        const u = usage.byName.get(k.name);
        if (!u) return usage.isPending ? <Skeleton width="56px" /> : '—';
        return (
          <span
            data-testid="key-last-used"
            title={u.lastUsedAt === null ? created(k) : `${new Date(u.lastUsedAt).toLocaleString()}; ${created(k)}`}
          >
            {u.lastUsedAt === null ? 'never' : ago(u.lastUsedAt)}
          </span>
        );
      },
    },
    {
      id: 'spend',
      header: `Spend, ${USAGE_DAYS} days`,
      accessorFn: (k) => usage.byName.get(k.name)?.costMicro ?? -1,
      sortDescFirst: true,
      cell: ({ row: { original: k } }) => {
        const u = usage.byName.get(k.name);
        if (!u || usage.since === undefined) return usage.isPending ? <Skeleton width="110px" /> : '—';
        return (
          <span className="key-spend" data-testid="key-spend">
            <Sparkline daily={u.dailyMicro} since={usage.since} total={u.costMicro} />
            <Usd micro={u.costMicro} />
          </span>
        );
      },
    },
    {
      id: 'quota',
      header: 'Spend / quota',
      accessorFn: (k) => k.usedMicro,
      sortDescFirst: true,
      cell: ({ row: { original: k } }) => <QuotaBar used={k.usedMicro} quota={k.quotaMicro} />,
    },
    {
      id: 'limits',
      header: 'Limits',
      enableSorting: false,
      cell: ({ row: { original: k } }) => <Limits k={k} />,
      meta: { className: 'muted' },
    },
    {
      id: 'expires',
      header: 'Expires',
      // Never expiring sorts after every date.
      accessorFn: (k) => k.expiresAt ?? '9999',
      sortingFn: 'text',
      cell: ({ row: { original: k } }) => (k.expiresAt ? date(k.expiresAt) : 'never'),
      meta: { className: 'muted nowrap' },
    },
    {
      id: 'actions',
      header: 'Actions',
      enableSorting: false,
      meta: { srHeader: true, className: 'actions' },
      cell: ({ row: { original: k } }) => <RowMenu label={`Actions for key ${k.name}`} items={ctx.menu(k)} />,
    },
  ];
}
