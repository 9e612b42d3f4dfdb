/**
 * Agent sessions (docs/sessions.md): what each coding session cost, its tool, key and project,
 * cache savings, and whether a guard paused it. The list follows the gateway's `session` events;
 * a session opens in its own view (`/sessions/:id`) with its timeline, sub-agents and Resume.
 */
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import type { SessionsQuery, SessionView } from '../../lib/api.js';
import { Empty, ErrorNote, PageHeader } from '../../components/ui.js';
import { useKeys, useSessions } from '../../lib/queries.js';
import { TOOLS } from '../../../gateway/contract/sessions.js';
import { useLiveSessions } from './use-live-sessions.js';
import { SessionDetail } from './detail.js';
import { toolName } from './parts.js';
import { SESSION_COLUMNS } from './columns.js';
import { DataTable } from '../../components/data-table.js';
import './sessions.css';

type StateFilter = '' | SessionView['state'];
const STATES: [StateFilter, string][] = [
  ['', 'any state'],
  ['active', 'active'],
  ['idle', 'idle'],
  ['paused', 'paused'],
];
/** How many sessions the list asks for; idle and paused are picked from them here (the API filters only "active"). */
const PAGE = 500;

export function Sessions() {
  useLiveSessions();
  const { id } = useParams();
  return id === undefined ? <SessionList /> : <SessionDetail id={id} />;
}

function SessionList() {
  const navigate = useNavigate();
  const keys = useKeys();
  const [key, setKey] = useState('');
  const [tool, setTool] = useState('');
  const [state, setState] = useState<StateFilter>('');
  const query: SessionsQuery = {
    limit: PAGE,
    ...(key ? { key } : {}),
    ...(tool ? { tool } : {}),
    ...(state === 'active' ? { active: true } : {}),
  };
  const sessions = useSessions(query);
  const shown = sessions.data?.filter((s) => state === '' || s.state === state);
  const paused = sessions.data?.filter((s) => s.state === 'paused').length ?? 0;
  return (
    <>
      <PageHeader
        title="Sessions"
        subtitle="Each coding-agent session: its tool, project, cost and cache savings, and the guards that paused it."
      />
      <div className="toolbar" role="search">
        <label className="toolbar-field">
          <span>Key</span>
          <select aria-label="Filter by key" value={key} onChange={(e) => setKey(e.target.value)}>
            <option value="">all keys</option>
            {keys.data?.map((k) => (
              <option key={k.id} value={k.name}>
                {k.name}
              </option>
            ))}
          </select>
        </label>
        <label className="toolbar-field">
          <span>Tool</span>
          <select aria-label="Filter by tool" value={tool} onChange={(e) => setTool(e.target.value)}>
            <option value="">any tool</option>
            {TOOLS.map((t) => (
              <option key={t} value={t}>
                {toolName(t)}
              </option>
            ))}
          </select>
        </label>
        <label className="toolbar-field">
          <span>State</span>
          <select aria-label="Filter by state" value={state} onChange={(e) => setState(e.target.value as StateFilter)}>
            {STATES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <span className="toolbar-spacer" />
        {paused > 0 && state !== 'paused' ? (
          <button type="button" className="button" onClick={() => setState('paused')}>
            {paused} paused
          </button>
        ) : null}
      </div>
      <ErrorNote error={sessions.error} />
      {shown && shown.length === 0 ? (
        <Empty title={sessions.data?.length ? 'No session matches these filters' : 'No sessions yet'}>
          A session starts with a coding tool's first request through a key: Claude Code, Codex and OpenCode name
          theirs; other clients may send <code>x-tollgate-session</code>, or get one per key and tool.
        </Empty>
      ) : (
        <DataTable
          label="Sessions"
          className="sessions-table"
          data={shown}
          columns={SESSION_COLUMNS}
          getRowId={(s) => s.id}
          rowProps={(s) => ({ className: s.state === 'paused' ? 'session-paused' : undefined })}
          onRowClick={(s) => void navigate(`/sessions/${encodeURIComponent(s.id)}`)}
          virtual={{ rowHeight: 37, maxHeight: 'calc(100vh - 190px)' }}
        />
      )}
    </>
  );
}
