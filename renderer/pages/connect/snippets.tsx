import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { admin } from '../../lib/api.js';
import { qk } from '../../lib/queries.js';
import { CopyButton } from '../../components/copy.js';
import { ErrorNote } from '../../components/ui.js';
import { ModelOptions, useServedModels } from './served-models.js';

/** Copy-paste setup for SDKs and other tools, with the base-URL form each one needs. */
export function Snippets() {
  const served = useServedModels();
  const [model, setModel] = useState('');
  const snippets = useQuery({
    queryKey: qk.snippets(model),
    queryFn: ({ signal }) => admin.call('listSnippets', { query: model ? { model } : {}, signal }),
  });
  return (
    <section className="panel" aria-labelledby="snippets-title">
      <div className="panel-head">
        <h2 id="snippets-title">Other clients</h2>
        <label className="toolbar-field">
          <span className="muted">Model</span>
          <select value={model} onChange={(e) => setModel(e.target.value)} aria-label="Model the snippets use">
            <option value="">{snippets.data ? `default (${snippets.data.model})` : 'default'}</option>
            <ModelOptions ids={served} />
          </select>
        </label>
      </div>
      <ErrorNote error={snippets.error} />
      <div className="snippets">
        {snippets.data?.snippets.map((s) => (
          <div key={s.id} className="snippet">
            <div className="snippet-head">
              <h3>{s.name}</h3>
              <code className="muted">{s.baseUrl}</code>
              <CopyButton value={s.text} what={`the ${s.name} snippet`} />
            </div>
            {s.note ? <p className="field-hint">{s.note}</p> : null}
            <pre className="code-block" tabIndex={0} aria-label={`${s.name} snippet`}>
              {s.text}
            </pre>
          </div>
        ))}
      </div>
    </section>
  );
}
