import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { admin, type LogEntry } from '../../lib/api.js';
import { Badge, ErrorNote, Field, PageHeader } from '../../components/ui.js';
import { ms, tokens } from '../../lib/format.js';
import { qk, useKeys, useModels } from '../../lib/queries.js';
import { useAction } from '../../components/use-action.js';
import { rememberSecret, secretFor } from '../../lib/secret-memory.js';
import { send } from './send.js';
import { FORMAT_NAMES, LISTED_FORMATS, type FormatId } from '../../../gateway/contract/formats.js';
import { WIRES } from './wires.js';
import { PLAYGROUND_MADE_BY } from '../../../gateway/contract/admin/index.js';
import { UsdCost } from '../../components/money.js';
import './playground.css';

/** Finds the log row a request made; it is written when the reply ends, so look a few times. */
async function findRow(requestId: string, key: string): Promise<LogEntry | undefined> {
  for (let i = 0; i < 20; i++) {
    const { entries: rows } = await admin.call('listLogs', { query: { key, limit: 50 } });
    const row = rows.find((r) => r.requestId === requestId);
    if (row) return row;
    await new Promise((r) => window.setTimeout(r, 250));
  }
  return undefined;
}

/**
 * Try a model through the gateway with a real key. The console never learns a key's secret from
 * the gateway (it keeps only hashes), so the playground uses its own key (POST /api/playground/key
 * makes it once, then gives that same key a new secret whenever this tab has none), a key created
 * in this tab, or a secret pasted by the person; any of them lives in this tab's memory only.
 */
export function Playground() {
  const keys = useKeys();
  const models = useModels();
  const [params] = useSearchParams();
  const [chosenKey, setKeyName] = useState(params.get('key') ?? '');
  const [pasted, setPasted] = useState('');
  const [chosenModel, setModel] = useState('');
  const [wireId, setWireId] = useState<FormatId>('openai-chat');
  const [prompt, setPrompt] = useState('Say hello in five words.');
  const [maxTokens, setMaxTokens] = useState('256');
  const [stream, setStream] = useState(true);
  const [output, setOutput] = useState('');
  const [running, setRunning] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [row, setRow] = useState<LogEntry | 'pending' | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const served = useMemo(() => (models.data ?? []).filter((m) => m.lines.length > 0), [models.data]);
  const usable = useMemo(() => (keys.data ?? []).filter((k) => k.state === 'enabled'), [keys.data]);
  const own = usable.find((k) => k.madeBy === PLAYGROUND_MADE_BY);
  // Until the person picks, the first served model, and the Playground's own key, else the first enabled key.
  const model = chosenModel || served[0]?.id || '';
  const keyName = chosenKey || own?.name || usable[0]?.name || '';

  const known = keyName ? secretFor(keyName) : undefined;
  const secret = known ?? pasted.trim();
  const ownKnown = own ? secretFor(own.name) !== undefined : false;
  const ownKey = useAction(
    async () => ({ had: own !== undefined, made: await admin.call('playgroundKey') }),
    [qk.keys],
    ({ had, made }) => {
      rememberSecret(made.key.name, made.secret);
      setKeyName(made.key.name);
      setPasted('');
      return had
        ? `The Playground's key "${made.key.name}" has a new secret, held in this tab's memory.`
        : `Key "${made.key.name}" made for the Playground; it is reused from now on.`;
    },
  );

  const run = async (): Promise<void> => {
    const wire = WIRES[wireId];
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    setOutput('');
    setFailure(null);
    setRow(null);
    setRunning(true);
    try {
      const result = await send(
        wire,
        { model, prompt, maxTokens: Number(maxTokens) || 256, stream, secret },
        (t) => setOutput((o) => o + t),
        ctl.signal,
      );
      if (result.error) setFailure(`${result.status}: ${result.error}`);
      if (result.requestId) {
        setRow('pending');
        setRow((await findRow(result.requestId, keyName)) ?? null);
      }
    } catch (err) {
      if (!ctl.signal.aborted) setFailure((err as Error).message);
    } finally {
      setRunning(false);
    }
  };
  const canSend = Boolean(secret && model && prompt.trim()) && !running;
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && canSend) {
      e.preventDefault();
      void run();
    }
  };

  return (
    <>
      <PageHeader
        title="Playground"
        subtitle="Send a prompt through the gateway, as a tool would, and see the log row it made."
      />
      <div className="playground">
        <section className="panel panel-pad form" aria-label="Request">
          <div className="key-row">
            <Field label="Key" htmlFor="pg-key">
              <select id="pg-key" value={keyName} onChange={(e) => (setKeyName(e.target.value), setPasted(''))}>
                {usable.length === 0 ? (
                  <option value="">{keys.isPending ? 'loading keys…' : 'no enabled key'}</option>
                ) : null}
                {usable.map((k) => (
                  <option key={k.id} value={k.name}>
                    {k.name} (sk-…{k.last4})
                  </option>
                ))}
              </select>
            </Field>
            {own && ownKnown ? null : (
              <button
                type="button"
                className="button"
                disabled={ownKey.isPending}
                onClick={() => ownKey.mutate(undefined)}
              >
                {own ? 'Use the Playground key' : 'Make a Playground key'}
              </button>
            )}
          </div>
          <p className="field-hint">
            {known
              ? 'This key’s secret is in this tab’s memory (gone on reload).'
              : own
                ? 'Tollgate keeps only key hashes: paste this key’s secret (kept in this tab’s memory only), or use the Playground key (it gets a new secret).'
                : 'Tollgate keeps only key hashes: paste this key’s secret (kept in this tab’s memory only), or make a Playground key, made once and reused.'}
          </p>
          {!known ? (
            <Field label="Key secret" htmlFor="pg-secret">
              <input
                id="pg-secret"
                type="password"
                autoComplete="off"
                placeholder="sk-…"
                value={pasted}
                onChange={(e) => setPasted(e.target.value)}
              />
            </Field>
          ) : null}
          <div className="form-grid">
            <Field
              label="Model"
              htmlFor="pg-model"
              hint={
                served.length === 0 && !models.isPending
                  ? 'No line serves a model yet: add one on the Lines page.'
                  : undefined
              }
            >
              <select id="pg-model" value={model} onChange={(e) => setModel(e.target.value)}>
                {served.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.id}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Client protocol" htmlFor="pg-wire">
              <select id="pg-wire" value={wireId} onChange={(e) => setWireId(e.target.value as typeof wireId)}>
                {LISTED_FORMATS.map((id) => (
                  <option key={id} value={id}>
                    {FORMAT_NAMES[id].name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <Field label="Prompt" htmlFor="pg-prompt" hint="Ctrl+Enter sends.">
            <textarea
              id="pg-prompt"
              rows={6}
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
              onKeyDown={onKey}
            />
          </Field>
          <div className="form-row">
            <Field label="Max output tokens" htmlFor="pg-max">
              <input id="pg-max" inputMode="numeric" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
            </Field>
            <label className="check">
              <input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} /> Stream
            </label>
            <span className="toolbar-spacer" />
            {running ? (
              <button type="button" className="button" onClick={() => abort.current?.abort()}>
                Stop
              </button>
            ) : null}
            <button type="button" className="button button-primary" disabled={!canSend} onClick={() => void run()}>
              Send
            </button>
          </div>
          <ErrorNote error={ownKey.error} />
        </section>
        <section className="panel" aria-label="Reply">
          <div className="panel-head">
            <h2>Reply</h2>
            {running ? <span className="muted">streaming…</span> : null}
          </div>
          <pre className="reply" aria-live="polite" data-testid="reply">
            {output || (running ? '' : <span className="muted">The reply appears here.</span>)}
          </pre>
          {failure ? (
            <p className="error-note panel-pad" role="alert">
              {failure}
            </p>
          ) : null}
          {row === 'pending' ? <p className="muted panel-pad">Waiting for the log row…</p> : null}
          {row && row !== 'pending' ? (
            <div className="panel-pad row-summary" data-testid="playground-row">
              <Badge tone={row.status < 400 ? 'ok' : 'bad'}>{row.status}</Badge>
              <span>
                line <strong>{row.line ?? '—'}</strong>
              </span>
              <span className="mono">
                {tokens(row.usage.inputTokens)} in · {tokens(row.usage.outputTokens)} out
              </span>
              <span className="mono">
                <UsdCost micro={row.costMicro} />
              </span>
              <span className="mono muted">{ms(row.latencyMs)}</span>
              <Link to={`/logs?request=${encodeURIComponent(row.requestId)}`} className="link">
                In the usage log →
              </Link>
            </div>
          ) : null}
        </section>
      </div>
    </>
  );
}
