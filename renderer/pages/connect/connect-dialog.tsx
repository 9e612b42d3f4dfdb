import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, type ConnectionView, type ConnectView } from '../../lib/api.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorNote, Field } from '../../components/ui.js';
import { qk } from '../../lib/queries.js';
import { ModelOptions, useServedModels } from './served-models.js';
import { useToast } from '../../components/toast.js';

const KEY_ACTION: Record<ConnectView['key']['action'], string> = {
  create: 'creates a new key',
  reuse: 'keeps the key its files already hold',
  rotate: 'gives the key a new secret',
};

/**
 * Connect one tool in two steps: a dry run shows the diff of each file and what happens to the
 * key; "Write" then sends the files' hashes back (`expect`), so what is written is what was shown.
 */
export function ConnectDialog({ tool, onClose }: { tool: ConnectionView; onClose(): void }) {
  const served = useServedModels();
  const [model, setModel] = useState(tool.model ?? tool.suggested?.model ?? '');
  const [small, setSmall] = useState(tool.smallModel ?? tool.suggested?.smallModel ?? '');
  const [preview, setPreview] = useState<ConnectView | null>(null);
  const qc = useQueryClient();
  const toast = useToast();
  const body = { ...(model ? { model } : {}), ...(tool.smallModelSetting && small ? { smallModel: small } : {}) };
  const dry = useMutation({
    mutationFn: () => admin.call('connectTool', { params: { tool: tool.tool }, body: { ...body, dryRun: true } }),
    onSuccess: setPreview,
  });
  const write = useMutation({
    mutationFn: (p: ConnectView) =>
      admin.call('connectTool', { params: { tool: tool.tool }, body: { ...body, expect: p.expect } }),
    onSuccess: async (done) => {
      await Promise.all([
        qc.invalidateQueries({ queryKey: qk.connections }),
        qc.invalidateQueries({ queryKey: qk.keys }),
      ]);
      toast.show(`${done.name} now points at Tollgate with the key "${done.key.name}".`);
      onClose();
    },
  });
  const changeModels = (f: () => void): void => {
    f();
    setPreview(null);
  };

  return (
    <Dialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Connect ${tool.name}`}
      wide
      description="Pick its models, preview the change to its files, then write it."
    >
      <div className="form">
        <div className={tool.smallModelSetting ? 'form-grid' : ''}>
          <Field label="Main model" htmlFor="connect-model" hint="Models your lines serve.">
            <select id="connect-model" value={model} onChange={(e) => changeModels(() => setModel(e.target.value))}>
              {served.length === 0 ? <option value="">no line serves a model yet</option> : null}
              <ModelOptions ids={served} />
            </select>
          </Field>
          {tool.smallModelSetting ? (
            <Field label="Small/fast model" htmlFor="connect-small" hint="For background tasks.">
              <select id="connect-small" value={small} onChange={(e) => changeModels(() => setSmall(e.target.value))}>
                <ModelOptions ids={served} />
              </select>
            </Field>
          ) : null}
        </div>
        {preview ? (
          <div className="connect-preview" aria-label="Preview">
            <p>
              Key <strong>{preview.key.name}</strong>: this {KEY_ACTION[preview.key.action]}
              {preview.key.action === 'create'
                ? '; its secret goes straight into the files below (masked here) and is not shown.'
                : '.'}
            </p>
            {!preview.changes ? (
              <p className="muted">The files already hold exactly these settings; nothing will change.</p>
            ) : null}
            {preview.files.map((f) => (
              <div key={f.id} className="connect-file">
                <p className="mono">
                  {f.path} <span className="muted">{f.existed ? '' : '(new file)'}</span>
                </p>
                {f.diff ? (
                  <pre className="code-block diff" tabIndex={0} aria-label={`Changes to ${f.path}`}>
                    {f.diff.split('\n').map((line, i) => (
                      <span
                        key={i}
                        className={
                          line.startsWith('+') && !line.startsWith('+++')
                            ? 'diff-add'
                            : line.startsWith('-') && !line.startsWith('---')
                              ? 'diff-del'
                              : undefined
                        }
                      >
                        {line}
                        {'\n'}
                      </span>
                    ))}
                  </pre>
                ) : (
                  <p className="muted">unchanged</p>
                )}
              </div>
            ))}
            {preview.notes.length > 0 ? (
              <ul className="plain-list">
                {preview.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            ) : null}
            <p className="field-hint">A backup of each file is kept; Disconnect puts them back exactly.</p>
          </div>
        ) : null}
        <ErrorNote error={dry.error ?? write.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {preview ? (
            <button
              type="button"
              className="button button-primary"
              disabled={write.isPending || !preview.changes}
              onClick={() => write.mutate(preview)}
            >
              Write changes
            </button>
          ) : (
            <button
              type="button"
              className="button button-primary"
              disabled={dry.isPending || served.length === 0}
              onClick={() => dry.mutate()}
            >
              Preview changes
            </button>
          )}
        </div>
      </div>
    </Dialog>
  );
}
