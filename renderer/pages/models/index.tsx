import { useMemo, useRef, useState } from 'react';
import type { ModelView } from '../../lib/api.js';
import { CopyButton } from '../../components/copy.js';
import { useShortcuts } from '../../components/shortcuts.js';
import { Badge, Empty, PageHeader } from '../../components/ui.js';
import { compact, perMillion } from '../../lib/format.js';
import { useModels } from '../../lib/queries.js';

const CLIENTS: [keyof ModelView['access'], string][] = [
  ['openai-chat', 'Chat'],
  ['openai-responses', 'Resp'],
  ['anthropic', 'Msgs'],
  ['gemini', 'Gem'],
];
const CLIENT_NAME: Record<string, string> = {
  'openai-chat': 'OpenAI Chat',
  'openai-responses': 'OpenAI Responses',
  anthropic: 'Anthropic Messages',
  gemini: 'Gemini',
};

function Access({ m }: { m: ModelView }) {
  return (
    <span className="access">
      {CLIENTS.map(([p, short]) => {
        const a = m.access[p];
        const tone = a === 'native' ? 'ok' : a === 'translated' ? 'info' : 'muted';
        return (
          <span key={p} className={`access-cell access-${tone}`} title={`${CLIENT_NAME[p]}: ${a}`}>
            {short}
            <span className="sr-only">
              {' '}
              {CLIENT_NAME[p]} {a}
            </span>
          </span>
        );
      })}
    </span>
  );
}

export function Models() {
  const models = useModels();
  const [query, setQuery] = useState('');
  const [vendor, setVendor] = useState('');
  const [servedOnly, setServedOnly] = useState(false);
  const search = useRef<HTMLInputElement>(null);
  useShortcuts(useMemo(() => ({ '/': () => search.current?.focus() }), []));

  const vendors = useMemo(() => [...new Set(models.data?.map((m) => m.vendor))].sort(), [models.data]);
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (models.data ?? []).filter(
      (m) =>
        (!q || m.id.toLowerCase().includes(q) || m.displayName.toLowerCase().includes(q)) &&
        (!vendor || m.vendor === vendor) &&
        (!servedOnly || m.lines.length > 0),
    );
  }, [models.data, query, vendor, servedOnly]);

  return (
    <>
      <PageHeader title="Models" subtitle="The catalogue: prices in USD per million tokens. Any client protocol reaches any model a line serves." />
      <div className="toolbar" role="search">
        <label className="toolbar-field toolbar-grow">
          <span>Search</span>
          <input ref={search} type="search" placeholder="id or name  ( / )" value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
        <label className="toolbar-field">
          <span>Vendor</span>
          <select value={vendor} onChange={(e) => setVendor(e.target.value)}>
            <option value="">all</option>
            {vendors.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
        <label className="toolbar-check">
          <input type="checkbox" checked={servedOnly} onChange={(e) => setServedOnly(e.target.checked)} /> served by a line
        </label>
        <span className="toolbar-spacer" />
        <span className="legend">
          <span className="access-cell access-ok">native</span>
          <span className="access-cell access-info">translated</span>
          <span className="access-cell access-muted">no line</span>
        </span>
      </div>
      {models.data && shown.length === 0 ? (
        <Empty title="No model matches" />
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Vendor</th>
                <th scope="col" className="num">
                  Input
                </th>
                <th scope="col" className="num">
                  Output
                </th>
                <th scope="col" className="num">
                  Cache read
                </th>
                <th scope="col" className="num">
                  Cache write
                </th>
                <th scope="col" className="num">
                  Context
                </th>
                <th scope="col">Lines</th>
                <th scope="col">Client access</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => (
                <tr key={m.id} data-model={m.id}>
                  <td>
                    <div className="model-id">
                      <code>{m.id}</code>
                      <span className="model-name" title={m.displayName}>
                        {m.displayName}
                      </span>
                      <CopyButton value={m.id} label="Copy" what={`model id ${m.id}`} />
                    </div>
                  </td>
                  <td>{m.vendor}</td>
                  <td className="num mono">{perMillion(m.prices.input)}</td>
                  <td className="num mono">{perMillion(m.prices.output)}</td>
                  <td className="num mono">{perMillion(m.prices.cacheRead)}</td>
                  <td className="num mono">{perMillion(m.prices.cacheWrite)}</td>
                  <td className="num mono">{compact(m.contextWindow)}</td>
                  <td>{m.lines.length > 0 ? m.lines.join(', ') : <Badge tone="muted">none</Badge>}</td>
                  <td>
                    <Access m={m} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
