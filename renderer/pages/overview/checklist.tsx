import { Link } from 'react-router';
import type { KeyView, LineView, WalletView } from '../../lib/api.js';

interface Props {
  wallet: WalletView | undefined;
  keys: KeyView[] | undefined;
  lines: LineView[] | undefined;
  /** Undefined while the recent requests load. */
  hasTraffic: boolean | undefined;
}

/** The four steps from an empty data dir to a first billed request; gone once all are done. */
export function Checklist({ wallet, keys, lines, hasTraffic }: Props) {
  // Shown only once every step is known: a checklist that flashes up while loading and then goes moves the page.
  if (!wallet || !keys || !lines || hasTraffic === undefined) return null;
  const steps = [
    {
      done: wallet.topupsMicro > 0,
      title: 'Top up the wallet',
      body: 'Requests are billed against it; with no balance they get 402.',
      to: '/wallet',
      action: 'Top up',
    },
    {
      done: lines.length > 0,
      title: 'Add a line',
      body: 'An upstream provider that serves models, from a preset. Its API key goes to the OS keychain.',
      to: '/lines',
      action: 'Add a line',
    },
    {
      done: keys.length > 0,
      title: 'Create a key',
      body: 'Your tools authenticate with an sk- key; it is shown once.',
      to: '/keys',
      action: 'Create a key',
    },
    {
      done: hasTraffic,
      title: 'Connect a tool',
      body: 'Point Claude Code, Codex or Gemini CLI at Tollgate in one step, or copy a snippet for an SDK.',
      to: '/connect',
      action: 'Connect a tool',
    },
  ];
  if (steps.every((s) => s.done)) return null;
  const next = steps.findIndex((s) => !s.done);
  return (
    <section className="panel checklist" aria-labelledby="checklist-title">
      <div className="panel-head">
        <h2 id="checklist-title">Get started</h2>
        <span className="muted">
          {steps.filter((s) => s.done).length} of {steps.length} done
        </span>
      </div>
      <ol className="steps">
        {steps.map((s, i) => (
          <li key={s.title} className={s.done ? 'step done' : i === next ? 'step current' : 'step'}>
            <span className="step-mark" aria-hidden="true">
              {s.done ? '✓' : i + 1}
            </span>
            <div className="step-text">
              <strong>{s.title}</strong>
              <span className="sr-only">{s.done ? ' (done)' : ''}</span>
              <span className="muted">{s.body}</span>
            </div>
            {!s.done ? (
              <Link to={s.to} className={i === next ? 'button button-primary button-small' : 'button button-small'}>
                {s.action}
              </Link>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
