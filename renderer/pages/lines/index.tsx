import { useState } from 'react';
import { Link } from 'react-router';
import { admin, type LineTestView, type LineView } from '../../lib/api.js';
import { Confirm } from '../../components/dialog.js';
import { RowMenu } from '../../components/menu.js';
import { Empty, NewButton, PageHeader, Switch } from '../../components/ui.js';
import { ms } from '../../lib/format.js';
import { qk, useKeyStorage, useLineUsage, useLines } from '../../lib/queries.js';
import { DayFigures, Health } from './health.js';
import './lines.css';
import { useAction } from '../../components/use-action.js';
import { AddLineDialog } from './add-line.js';
import { EditLineDialog } from './edit-line.js';

/** The models a line serves, on its row: the first few, then how many more (all of them on hover). */
function LineModels({ models }: { models: string[] }) {
  const shown = models.slice(0, 3);
  return (
    <span className="line-models" title={models.join(', ')}>
      {shown.map((m) => (
        <code key={m}>{m}</code>
      ))}
      {models.length > shown.length ? <span className="muted">+{models.length - shown.length} more</span> : null}
    </span>
  );
}

const SOURCE: Record<LineView['apiKeySource'], string> = { keychain: 'keychain', env: 'env', none: 'no key' };

export function Lines() {
  const lines = useLines();
  const usage = useLineUsage();
  const usageOf = new Map(usage.data?.lines.map((u) => [u.line, u]) ?? []);
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
                <th scope="col">Models</th>
                <th scope="col">Key</th>
                <th scope="col" className="num">
                  Priority
                </th>
                <th scope="col" className="num">
                  Weight
                </th>
                <th scope="col">Health</th>
                <th scope="col">Last 24 h</th>
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
                    <td className="line-name">
                      <strong>{l.name}</strong>
                      <span className="mono muted truncate" title={`${l.protocol} at ${l.baseUrl}`}>
                        {l.protocol} · {l.baseUrl}
                      </span>
                    </td>
                    <td>
                      <LineModels models={l.models} />
                    </td>
                    <td className="muted">{l.apiKeySource === 'env' ? `$${l.apiKeyEnv}` : SOURCE[l.apiKeySource]}</td>
                    <td className="num mono">{l.priority}</td>
                    <td className="num mono">{l.weight}</td>
                    <td>
                      <Health
                        l={l}
                        usage={usageOf.get(l.name)}
                        test={t && t !== 'running' ? t : undefined}
                        at={lines.dataUpdatedAt}
                      />
                      <Link
                        className="link"
                        to={`/logs?line=${encodeURIComponent(l.name)}&status=error`}
                        aria-label={`Recent errors of line ${l.name}`}
                      >
                        errors
                      </Link>
                    </td>
                    <td>
                      <DayFigures usage={usageOf.get(l.name)} />
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
