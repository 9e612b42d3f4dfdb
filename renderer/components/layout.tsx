import { useCallback, useMemo, useState, type ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { admin } from '../lib/api.js';
import { LOGGED_OUT_EVENT } from '../lib/session-events.js';
import { useLiveEvents } from '../lib/live.js';
import { useStatus, useWallet } from '../lib/queries.js';
import { Dialog } from './dialog.js';
import { useShortcuts } from './shortcuts.js';
import { useTheme, type ThemeChoice } from './theme.js';
import { Usd } from './money.js';

/** A page as the navigation shows it (pages/registry.tsx lists them). */
export interface NavEntry {
  path: string;
  /** The sidebar's label, which is also the page's h1. */
  label: string;
  /** The one-key shortcut that opens it. */
  key: string;
}

const THEMES: ThemeChoice[] = ['system', 'light', 'dark'];

export function Layout({ children, pages }: { children: ReactNode; pages: readonly NavEntry[] }) {
  const navigate = useNavigate();
  const [theme, setTheme] = useTheme();
  const [help, setHelp] = useState(false);
  const wallet = useWallet();
  const status = useStatus();
  const qc = useQueryClient();
  useLiveEvents(useCallback(() => window.dispatchEvent(new Event(LOGGED_OUT_EVENT)), []));
  const shortcuts = useMemo(() => {
    const map: Record<string, () => void> = { '?': () => setHelp(true) };
    for (const p of pages) map[p.key] = () => void navigate(p.path);
    return map;
  }, [navigate, pages]);
  useShortcuts(shortcuts);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Pages">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            T
          </span>
          <span className="brand-name">Tollgate</span>
          {status.data ? <span className="brand-version">v{status.data.version}</span> : null}
        </div>
        <ul className="nav">
          {pages.map((p) => (
            <li key={p.path}>
              <NavLink
                to={p.path}
                end={p.path === '/'}
                className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}
              >
                <span>{p.label}</span>
                <kbd aria-hidden="true">{p.key}</kbd>
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          {wallet.data ? (
            <NavLink to="/wallet" className="sidebar-balance">
              <span className="muted">Balance</span>
              <strong>
                <Usd micro={wallet.data.balanceMicro} />
              </strong>
            </NavLink>
          ) : null}
          <div className="segmented theme-switch" role="radiogroup" aria-label="Theme">
            {THEMES.map((t) => (
              <button
                key={t}
                type="button"
                role="radio"
                aria-checked={theme === t}
                className={theme === t ? 'active' : ''}
                onClick={() => setTheme(t)}
              >
                {t === 'system' ? 'Auto' : t === 'light' ? 'Light' : 'Dark'}
              </button>
            ))}
          </div>
          <div className="sidebar-row">
            <button type="button" className="link-button" onClick={() => setHelp(true)}>
              Shortcuts <kbd>?</kbd>
            </button>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                void admin.call('logout').finally(() => qc.clear());
                window.location.replace('/');
              }}
            >
              Log out
            </button>
          </div>
        </div>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {children}
      </main>
      <Dialog open={help} onOpenChange={setHelp} title="Keyboard shortcuts">
        <table className="shortcut-table">
          <tbody>
            {pages.map((p) => (
              <tr key={p.key}>
                <td>
                  <kbd>{p.key}</kbd>
                </td>
                <td>{p.label}</td>
              </tr>
            ))}
            <tr>
              <td>
                <kbd>/</kbd>
              </td>
              <td>Search or filter on the current page</td>
            </tr>
            <tr>
              <td>
                <kbd>n</kbd>
              </td>
              <td>New key, line or group on its page</td>
            </tr>
            <tr>
              <td>
                <kbd>↑</kbd> <kbd>↓</kbd> <kbd>Enter</kbd>
              </td>
              <td>Move through the usage log and open a request</td>
            </tr>
            <tr>
              <td>
                <kbd>Ctrl</kbd> <kbd>Enter</kbd>
              </td>
              <td>Send in the playground</td>
            </tr>
            <tr>
              <td>
                <kbd>Esc</kbd>
              </td>
              <td>Close a dialog or panel</td>
            </tr>
          </tbody>
        </table>
      </Dialog>
    </div>
  );
}
