import { useState } from 'react';
import { Link } from 'react-router';
import { admin, type LineTestView, type LineView } from '../../lib/api.js';
import { Confirm } from '../../components/dialog.js';
import { RowMenu } from '../../components/menu.js';
import { Badge, Empty, NewButton, PageHeader, Switch } from '../../components/ui.js';
import { ms } from '../../lib/format.js';
import { qk, useKeyStorage, useLines } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { AddLineDialog } from './add-line.js';
import { EditLineDialog } from './edit-line.js';

function Health({ l }: { l: LineView }) {
  if (!l.enabled) return <Badge tone="muted">off</Badge>;
  const { state, failures, waitMs } = l.health;
  if (state === 'open') return <Badge tone="bad">open · {Math.ceil(waitMs / 1000)}s</Badge>;
  if (state === 'half-open') return <Badge tone="warn">half-open</Badge>;
  if (waitMs > 0) return <Badge tone="warn">held · {Math.ceil(waitMs / 1000)}s</Badge>;
  return <Badge tone={failures > 0 ? 'warn' : 'ok'}>{failures > 0 ? `${failures} failed` : 'healthy'}</Badge>;
}

const SOURCE: Record<LineView['apiKeySource'], string> = { keychain: 'keychain', env: 'env', none: 'no key' };

export function Lines() {
  const lines = useLines();
  // Asked now, so the Add-line dialog knows from its first paint whether the keychain can be offered.
  useKeyStorage();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<LineView | null>(null);
  const [removing, setRemoving] = useState<LineView | null>(null);
  const [tests, setTests] = useState<Record<string, LineTestView | 'running'>>({});
  const toggle = useAction(
    (a: { name: string; enabled: boolean }) =>
      admin.call('updateLine', { params: { name: a.name }, body: { enabled: a.enabled } }).then((r) => r.line),
    [qk.lines, qk.models],
    (l) => `Line "${l.name}" ${l.enabled ? 'enabled' : 'disabled'}.`,
  );
  const remove = useAction(
    (name: string) => admin.call('removeLine', { params: { name } }).then((r) => r.line),
    [qk.lines, qk.models],
    (l) => (setRemoving(null), `Line "${l.name}" removed.`),
  );

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
        <NewButton label="Add line" onNew={() => setAdding(true)} />
      </PageHeader>
      {lines.data && lines.data.length === 0 ? (
        <Empty title="No lines yet">
          <p>
            Add a provider from a preset (OpenAI, Anthropic, Google, OpenRouter, a local Ollama…). Its API key goes to
            the OS keychain.
          </p>
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            Add line
          </button>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">On</th>
                <th scope="col">Name</th>
                <th scope="col">Protocol</th>
                <th scope="col">Base URL</th>
                <th scope="col">Models</th>
                <th scope="col">Key</th>
                <th scope="col" className="num">
                  Priority
                </th>
                <th scope="col" className="num">
                  Weight
                </th>
                <th scope="col">Health</th>
                <th scope="col">Test</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {lines.data?.map((l) => {
                const t = tests[l.name];
                return (
                  <tr key={l.id} data-line={l.name} className={l.enabled ? '' : 'row-off'}>
                    <td>
                      <Switch
                        checked={l.enabled}
                        label={`Line ${l.name} enabled`}
                        onChange={(enabled) => toggle.mutate({ name: l.name, enabled })}
                      />
                    </td>
                    <td>
                      <strong>{l.name}</strong>
                    </td>
                    <td className="muted">{l.protocol}</td>
                    <td className="mono muted truncate" title={l.baseUrl}>
                      {l.baseUrl}
                    </td>
                    <td title={l.models.join(', ')}>
                      {l.models.length === 1 ? <code>{l.models[0]}</code> : `${l.models.length} models`}
                    </td>
                    <td className="muted">{l.apiKeySource === 'env' ? `$${l.apiKeyEnv}` : SOURCE[l.apiKeySource]}</td>
                    <td className="num mono">{l.priority}</td>
                    <td className="num mono">{l.weight}</td>
                    <td>
                      <Health l={l} />{' '}
                      <Link
                        className="link"
                        to={`/logs?line=${encodeURIComponent(l.name)}&status=error`}
                        aria-label={`Recent errors of line ${l.name}`}
                      >
                        errors
                      </Link>
                    </td>
                    <td className="test-cell">
                      <button
                        type="button"
                        className="button button-small"
                        disabled={t === 'running'}
                        onClick={() => test(l.name)}
                      >
                        {t === 'running' ? 'Testing…' : 'Test'}
                      </button>
                      {t && t !== 'running' ? (
                        <span className={t.ok ? 'test-result ok' : 'test-result bad'} role="status" title={t.message}>
                          {t.ok ? `ok · ${ms(t.latencyMs)}` : `failed${t.status ? ` · ${t.status}` : ''}`}
                        </span>
                      ) : null}
                    </td>
                    <td className="actions">
                      <RowMenu
                        label={`Actions for line ${l.name}`}
                        items={[
                          { label: 'Edit…', onSelect: () => setEditing(l) },
                          {
                            label: l.enabled ? 'Disable' : 'Enable',
                            onSelect: () => toggle.mutate({ name: l.name, enabled: !l.enabled }),
                          },
                          { label: 'Remove…', danger: true, onSelect: () => setRemoving(l) },
                        ]}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {Object.entries(tests).map(([name, t]) =>
        t !== 'running' && !t.ok ? (
          <p key={name} className="error-note">
            <strong>{name}</strong>: {t.message}
          </p>
        ) : null,
      )}
      <AddLineDialog open={adding} onOpenChange={setAdding} />
      <EditLineDialog line={editing} onClose={() => setEditing(null)} />
      <Confirm
        open={removing !== null}
        onOpenChange={(o) => !o && setRemoving(null)}
        title={`Remove line "${removing?.name ?? ''}"?`}
        confirmLabel="Remove line"
        busy={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing.name)}
      >
        Its models are no longer served through it, and its API key is deleted from the OS keychain.
      </Confirm>
    </>
  );
}
