import * as RadixDialog from '@radix-ui/react-dialog';
import type { LogEntry } from '../../lib/api.js';
import { CopyButton } from '../../components/copy.js';
import { Badge } from '../../components/ui.js';
import { usdPrice } from '../../../gateway/contract/money.js';
import { UsdCost } from '../../components/money.js';
import { dateTime, ms, tokens } from '../../lib/format.js';
import { RequestBody } from './request-body.js';
import { toolLabel } from './who.js';
import { Link } from 'react-router';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../../../gateway/contract/usage-buckets.js';

/** Every usage bucket with its label, in bill order (contract/usage-buckets.ts). */
const USAGE_ROWS = BUCKET_KEYS.map((k) => [k, USAGE_BUCKETS[k].title] as const);

/** One request in full: a side sheet over the log, closed with Escape, focus back on the row. */
export function LogDetails({
  entry,
  onClose,
  returnFocus,
  onNewer,
  onOlder,
}: {
  entry: LogEntry | null;
  onClose(): void;
  returnFocus?: () => void;
  /** Step to the row above or below in the log; absent at either end. */
  onNewer?: (() => void) | undefined;
  onOlder?: (() => void) | undefined;
}) {
  return (
    <RadixDialog.Root open={entry !== null} onOpenChange={(o) => !o && onClose()}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay sheet-overlay" />
        <RadixDialog.Content
          className="sheet"
          aria-describedby={undefined}
          // Opened from a row, not a trigger button: hand the focus back to the log so arrows keep working.
          onCloseAutoFocus={(e) => {
            if (!returnFocus) return;
            e.preventDefault();
            returnFocus();
          }}
        >
          {entry ? <Body e={entry} onNewer={onNewer} onOlder={onOlder} /> : null}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

interface Steps {
  onNewer?: (() => void) | undefined;
  onOlder?: (() => void) | undefined;
}

function Body({ e, onNewer, onOlder }: { e: LogEntry } & Steps) {
  const failovers = e.notes?.split('; ').filter((n) => /^line ".*" failed/.test(n)) ?? [];
  const translation = e.notes?.split('; ').filter((n) => !/^line ".*" failed/.test(n)) ?? [];
  return (
    <>
      <div className="dialog-head">
        <RadixDialog.Title className="dialog-title">
          Request <span className="mono">#{e.id}</span>{' '}
          <Badge tone={e.status < 400 ? 'ok' : e.status >= 500 ? 'bad' : 'warn'}>{e.status}</Badge>
        </RadixDialog.Title>
        <span className="sheet-steps">
          <button type="button" className="button button-small" disabled={!onNewer} onClick={onNewer}>
            ← Newer
          </button>
          <button type="button" className="button button-small" disabled={!onOlder} onClick={onOlder}>
            Older →
          </button>
        </span>
        <RadixDialog.Close className="icon-button" aria-label="Close">
          ×
        </RadixDialog.Close>
      </div>
      <dl className="facts">
        <dt>Request id</dt>
        <dd className="mono">
          {e.requestId} <CopyButton value={e.requestId} what="request id" />
        </dd>
        <dt>Time</dt>
        <dd>{dateTime(e.ts)}</dd>
        <dt>Key</dt>
        <dd>{e.keyName ?? '—'}</dd>
        <dt>Tool</dt>
        <dd>{e.tool ? toolLabel(e.tool) : '—'}</dd>
        <dt>Project</dt>
        <dd>{e.project ?? '—'}</dd>
        <dt>Session</dt>
        <dd data-testid="detail-session">
          {e.session ? (
            <>
              <Link className="link mono" to={`/sessions/${encodeURIComponent(e.session)}`}>
                {e.session}
              </Link>{' '}
              <RadixDialog.Close asChild>
                <Link className="link muted" to={`/logs?session=${encodeURIComponent(e.session)}`}>
                  its requests
                </Link>
              </RadixDialog.Close>
              {e.agent ? (
                <>
                  <br />
                  <span className="muted">sub-agent </span>
                  <span className="mono">{e.agent}</span>
                </>
              ) : null}
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt>Model</dt>
        <dd className="mono">
          {e.model ?? '—'}
          {e.servedModel && e.servedModel !== e.model ? ` → ${e.servedModel} (alias)` : ''}
          {e.upstreamModel && e.upstreamModel !== (e.servedModel ?? e.model) ? ` · upstream id ${e.upstreamModel}` : ''}
        </dd>
        <dt>Protocols</dt>
        <dd>
          {e.upstreamProtocol
            ? `${e.inboundProtocol} in → ${e.upstreamProtocol} upstream`
            : `${e.inboundProtocol} in; not forwarded`}
          {e.stream ? ', streamed' : ''}
        </dd>
        <dt>Line</dt>
        <dd>
          {e.line
            ? `${e.line} · ${e.attempts} ${e.attempts === 1 ? 'attempt' : 'attempts'}`
            : 'none (refused before forwarding)'}
        </dd>
      </dl>
      {e.errorCode ? (
        <section className="sheet-section">
          <h3>Error</h3>
          <p className="error-note">
            <span className="mono">{e.errorCode}</span>: {e.errorMessage}
          </p>
        </section>
      ) : null}
      {failovers.length > 0 ? (
        <section className="sheet-section">
          <h3>Failover</h3>
          <ol className="plain-list">
            {failovers.map((f) => (
              <li key={f}>{f}</li>
            ))}
            <li>answered by line "{e.line}"</li>
          </ol>
        </section>
      ) : null}
      {translation.length > 0 ? (
        <section className="sheet-section">
          <h3>Translation notes</h3>
          <ul className="plain-list">
            {translation.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </section>
      ) : null}
      <section className="sheet-section">
        <h3>Timing</h3>
        <dl className="facts">
          <dt>First byte</dt>
          <dd>{ms(e.ttfbMs)}</dd>
          <dt>Total</dt>
          <dd>{ms(e.latencyMs)}</dd>
        </dl>
      </section>
      <Charge e={e} />
      <section className="sheet-section">
        <h3>Request body</h3>
        <RequestBody requestId={e.requestId} />
      </section>
    </>
  );
}

/** A usage bucket's label in the breakdown, by the usage key the gateway names it with. */
const LABELS = new Map<string, string>(USAGE_ROWS);

/** One line of the charge: what was used, how much at what price, and its dollars when priced. */
interface ChargeRow {
  key: string;
  label: string;
  amount: string;
  usd: string | null;
}

const CHARGE_COLUMNS: DataColumn<ChargeRow>[] = [
  { id: 'usage', header: 'Usage', accessorFn: (r) => r.label, meta: { rowHeader: true } },
  { id: 'amount', header: 'Tokens × price', accessorFn: (r) => r.amount, meta: { numeric: true, className: 'mono' } },
  {
    id: 'usd',
    header: 'Charge',
    accessorFn: (r) => r.usd,
    cell: ({ row }) => (row.original.usd === null ? null : `$${row.original.usd}`),
    meta: { numeric: true, className: 'mono' },
  },
];

/** The charge's lines: each priced term, or for a row logged before prices were kept, its token counts. */
function chargeRows(e: LogEntry): ChargeRow[] {
  const b = e.breakdown;
  if (b)
    return b.terms.map((t) => ({
      key: t.usage,
      label: LABELS.get(t.usage) ?? t.usage,
      amount: `${tokens(t.tokens)} × ${usdPrice(t.priceMicroPerMillion)}/M`,
      usd: t.usd,
    }));
  return USAGE_ROWS.filter(([k]) => e.usage[k] > 0 || k === 'inputTokens' || k === 'outputTokens').map(
    ([k, label]) => ({
      key: k,
      label,
      amount: `${tokens(e.usage[k])} tokens`,
      usd: null,
    }),
  );
}

/**
 * The charge: with the prices the row was billed at (kept with it, so it holds after any price
 * change), tokens × price per kind, the group multiplier and the rounding; for rows logged before
 * prices were kept, the token counts and the cost. Its order is the bill's, so it does not sort.
 */
function Charge({ e }: { e: LogEntry }) {
  const b = e.breakdown;
  return (
    <section className="sheet-section">
      <h3>Charge</h3>
      <DataTable
        label="Charge"
        data={chargeRows(e)}
        columns={CHARGE_COLUMNS}
        getRowId={(r) => r.key}
        sortable={false}
        framed={false}
        compact
        footer={
          <>
            {b && b.multiplier !== '1' ? (
              <tr>
                <th scope="row">Group multiplier</th>
                <td className="num mono">× {b.multiplier}</td>
                <td />
              </tr>
            ) : null}
            <tr className="total">
              <th scope="row">Cost</th>
              <td />
              <td className="num mono" data-testid="detail-cost">
                <UsdCost micro={e.costMicro} />
              </td>
            </tr>
          </>
        }
      />
      {b ? (
        <p className="mono muted" data-testid="detail-formula">
          {b.formula}
        </p>
      ) : null}
      <p className="muted">
        {e.usageEstimated ? 'The upstream reported no usage: Tollgate counted these tokens itself. ' : ''}
        {b
          ? 'At the prices this request was billed at; a later price change does not alter it.'
          : e.servedModel
            ? "Logged before each row kept its prices: cost = tokens of each kind × the model's price per million × the key's group multiplier, rounded up to a micro-dollar."
            : 'Refused before a model was chosen: nothing billed.'}
      </p>
    </section>
  );
}
