import { useState } from 'react';
import { admin, type ConnectionView } from '../../lib/api.js';
import { Confirm } from '../../components/dialog.js';
import { Badge, ErrorNote, PageHeader } from '../../components/ui.js';
import { qk, useConnections } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { ConnectDialog } from './connect-dialog.js';
import { Snippets } from './snippets.js';
import './connect.css';

function state(t: ConnectionView): { tone: 'ok' | 'warn' | 'muted' | 'info'; label: string } {
  if (t.connected && t.matches) return { tone: 'ok', label: 'connected' };
  if (t.connected) return { tone: 'warn', label: 'connected, needs attention' };
  if (t.pointsAtTollgate) return { tone: 'info', label: 'points here, set up by hand' };
  return { tone: 'muted', label: 'not connected' };
}

export function Connect() {
  const connections = useConnections();
  const [connecting, setConnecting] = useState<ConnectionView | null>(null);
  const [leaving, setLeaving] = useState<ConnectionView | null>(null);
  const disconnect = useAction(
    (t: ConnectionView) => admin.call('disconnectTool', { params: { tool: t.tool } }),
    [qk.connections, qk.keys],
    (d) =>
      `${d.name} disconnected: its files are as they were${d.key.action === 'deleted' ? `, and the key "${d.key.name}" is deleted` : ''}.`,
  );

  return (
    <>
      <PageHeader
        title="Connect"
        subtitle="Point a coding tool at Tollgate with a key of its own. Every change is previewed before it is written and can be undone."
      />
      <section className="panel" aria-labelledby="tools-title">
        <div className="panel-head">
          <h2 id="tools-title">Coding tools</h2>
          {connections.data ? (
            <span className="muted">
              base URL <code>{connections.data.origin}</code>
            </span>
          ) : null}
        </div>
        <ErrorNote error={connections.error} />
        <ul className="tools">
          {connections.data?.tools.map((t) => {
            const s = state(t);
            return (
              <li key={t.tool} className="tool" aria-labelledby={`tool-${t.tool}`}>
                <div className="tool-main">
                  <div className="tool-title">
                    <h3 id={`tool-${t.tool}`}>{t.name}</h3>
                    <Badge tone={s.tone}>{s.label}</Badge>
                  </div>
                  <dl className="facts">
                    <dt>Key</dt>
                    <dd>{t.keyName ? `${t.keyName}${t.keyLast4 ? ` (…${t.keyLast4})` : ''}` : '—'}</dd>
                    <dt>Model</dt>
                    <dd className="mono">
                      {t.model ? (
                        `${t.model}${t.smallModel ? `, small/fast ${t.smallModel}` : ''}`
                      ) : (
                        <span className="muted">
                          {t.suggested ? `none yet (would use ${t.suggested.model})` : 'none yet'}
                        </span>
                      )}
                    </dd>
                    <dt>Files</dt>
                    <dd className="mono">
                      {t.files.length === 0
                        ? '—'
                        : t.files.map((f) => (
                            <span key={f.path} className="tool-file">
                              {f.path} <span className="muted">{f.state}</span>
                            </span>
                          ))}
                    </dd>
                  </dl>
                  {t.problems.length > 0 ? (
                    <ul className="plain-list tool-problems" aria-label={`Problems with ${t.name}`}>
                      {t.problems.map((p) => (
                        <li key={p}>{p}</li>
                      ))}
                    </ul>
                  ) : null}
                </div>
                <div className="tool-actions">
                  <button
                    type="button"
                    className={t.connected ? 'button' : 'button button-primary'}
                    onClick={() => setConnecting(t)}
                  >
                    {t.connected ? 'Reconnect' : 'Connect'}
                    <span className="sr-only"> {t.name}</span>
                  </button>
                  {t.connected ? (
                    <button type="button" className="button" onClick={() => setLeaving(t)}>
                      Disconnect<span className="sr-only"> {t.name}</span>
                    </button>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      </section>
      <Snippets />
      {connecting ? <ConnectDialog tool={connecting} onClose={() => setConnecting(null)} /> : null}
      <Confirm
        open={leaving !== null}
        onOpenChange={(open) => !open && setLeaving(null)}
        title={`Disconnect ${leaving?.name ?? ''}?`}
        confirmLabel="Disconnect"
        busy={disconnect.isPending}
        onConfirm={() => {
          if (leaving) disconnect.mutate(leaving, { onSettled: () => setLeaving(null) });
        }}
      >
        Its files go back to how they were before Tollgate connected it (a file you edited since keeps your edits; only
        Tollgate's entries come out), and the key made for it is deleted.
      </Confirm>
    </>
  );
}
