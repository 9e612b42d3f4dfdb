/**
 * One session: what it cost against its cap, its cache savings, why it is paused (and Resume), its
 * requests in order with the cumulative cost (a chart and a table), and its sub-agents.
 */
import { Link } from 'react-router';
import type { SessionDetailView } from '../../lib/api.js';
import { Empty, ErrorNote, PageHeader } from '../../components/ui.js';
import { useSession } from '../../lib/queries.js';
import { compact, dateTime, tokens } from '../../lib/format.js';
import { usd } from '../../../gateway/contract/money.js';
import { AdminError } from '../../lib/api.js';
import { CostTimeline } from './timeline.js';
import { ResumeForm } from './resume.js';
import { guardName, hitRate, StateBadge, toolName } from './parts.js';
import { AGENT_COLUMNS, REQUEST_COLUMNS } from './columns.js';
import { DataTable } from '../../components/data-table.js';

export function SessionDetail({ id }: { id: string }) {
  const q = useSession(id);
  const back = (
    <Link to="/sessions" className="button">
      ← All sessions
    </Link>
  );
  if (q.error instanceof AdminError && q.error.status === 404)
    return (
      <>
        <PageHeader title="Session">{back}</PageHeader>
        <Empty title="No such session">
          <span className="mono">{id}</span> is not in the log (pruned, or never seen).
        </Empty>
      </>
    );
  return (
    <>
      <PageHeader title="Session" subtitle={<span className="mono session-title-id">{id}</span>}>
        {back}
      </PageHeader>
      <ErrorNote error={q.error} />
      {q.data ? <Body d={q.data} /> : null}
    </>
  );
}

function Body({ d }: { d: SessionDetailView }) {
  const s = d.session;
  return (
    <>
      <dl className="facts session-facts">
        <dt>State</dt>
        <dd>
          <StateBadge s={s} /> {s.state === 'paused' ? `by the ${guardName(s)}` : null}
        </dd>
        <dt>Tool</dt>
        <dd>{toolName(s.tool)}</dd>
        <dt>Key · project</dt>
        <dd>
          {s.keyName ?? 'deleted key'} · {s.project ?? '—'}
        </dd>
        <dt>Requests</dt>
        <dd>
          {s.requests} from {dateTime(s.firstTs)} to {dateTime(s.lastTs)}
          {s.errors > 0 ? `, ${s.errors} failed` : ''}
        </dd>
      </dl>
      <div className="stats session-stats">
        <div className="stat">
          <span className="stat-label">Cost</span>
          <span className="stat-value">{usd(s.costMicro)}</span>
          <span className="stat-note">
            {s.capMicro !== null ? `of a ${usd(s.capMicro)} session cap` : 'no session cap'}
            {s.heldMicro > 0 ? ` · ${usd(s.heldMicro)} held in flight` : ''}
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Saved by caching</span>
          <span className="stat-value">{usd(s.savedMicro)}</span>
          <span className="stat-note">cache reads at the input price, less what they cost</span>
        </div>
        <div className="stat">
          <span className="stat-label">Cache-hit rate</span>
          <span className="stat-value">{hitRate(s)}</span>
          <span className="stat-note">
            {tokens(s.cacheReadTokens)} of {tokens(s.promptTokens)} prompt tokens
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Tokens</span>
          <span className="stat-value">{compact(s.promptTokens + s.outputTokens)}</span>
          <span className="stat-note">
            {tokens(s.promptTokens)} prompt · {tokens(s.outputTokens)} output
          </span>
        </div>
      </div>
      {s.state === 'paused' && s.pause ? (
        <section className="session-pause" aria-labelledby="pause-title">
          <h2 id="pause-title">Paused {dateTime(s.pause.at)}</h2>
          <p>{s.pause.reason}</p>
          {s.pause.call ? (
            <p>
              Repeated call: <code className="mono">{s.pause.call}</code>
            </p>
          ) : null}
          <ResumeForm s={s} />
        </section>
      ) : null}
      <section className="session-section" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <CostTimeline requests={d.requests} capMicro={s.capMicro} />
        <Requests d={d} />
      </section>
      <section className="session-section" aria-labelledby="agents-title">
        <h2 id="agents-title">Sub-agents</h2>
        {d.agents.length === 0 ? (
          <p className="muted">None: every request came from the main agent.</p>
        ) : (
          <DataTable label="Sub-agents" data={d.agents} columns={AGENT_COLUMNS} getRowId={(a) => a.agent} />
        )}
      </section>
    </>
  );
}

function Requests({ d }: { d: SessionDetailView }) {
  const { requests, session } = d;
  return (
    <div className="session-requests">
      {requests.length < session.requests ? (
        <p className="muted">
          The last {requests.length} of its {session.requests} requests.
        </p>
      ) : null}
      <DataTable
        label="Requests of the session"
        data={requests}
        columns={REQUEST_COLUMNS}
        getRowId={(r) => String(r.id)}
        virtual={{ rowHeight: 37, maxHeight: '640px' }}
      />
    </div>
  );
}
