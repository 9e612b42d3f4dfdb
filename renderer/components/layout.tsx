import { Fragment, useCallback, useMemo, useState, type ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { admin } from '../lib/api.js';
import { LOGGED_OUT_EVENT } from '../lib/session-events.js';
import { useLiveEvents } from '../lib/live.js';
import { useStatus, useWallet } from '../lib/queries.js';
import { DataTable, type DataColumn } from './data-table.js';
import { Dialog } from './dialog.js';
import { useShortcuts } from './shortcuts.js';
import { useTheme, type ThemeChoice } from './theme.js';
import { Usd } from './money.js';
import './layout.css';

/** A page as the navigation shows it (pages/registry.tsx lists them). */
export interface NavEntry {
  path: string;
  /** The sidebar's label, which is also the page's h1. */
  label: string;
  /** The one-key shortcut that opens it. */
  key: string;
}

interface Shortcut {
  keys: string[];
  action: string;
}

/** The shortcuts besides the pages' own keys. */
const OTHER_SHORTCUTS: Shortcut[] = [
  { keys: ['/'], action: 'Search or filter on the current page' },
  { keys: ['n'], action: 'New key, line or group on its page' },
  { keys: ['↑', '↓', 'Enter'], action: 'Move through the usage log and open a request' },
  { keys: ['Ctrl', 'Enter'], action: 'Send in the playground' },
  { keys: ['Esc'], action: 'Close a dialog or panel' },
];

const SHORTCUT_COLUMNS: DataColumn<Shortcut>[] = [
  {
    id: 'keys',
    header: 'Key',
    accessorFn: (r) => r.keys.join(' '),
    cell: ({ row }) =>
      row.original.keys.map((k, i) => (
        <Fragment key={k}>
          {i > 0 ? ' ' : null}
          <kbd>{k}</kbd>
        </Fragment>
      )),
  },
  { id: 'action', header: 'Does', accessorFn: (r) => r.action },
];

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
        <DataTable
          label="Keyboard shortcuts"
          className="shortcut-table"
          compact
          framed={false}
          sortable={false}
          data={[...pages.map((p) => ({ keys: [p.key], action: p.label })), ...OTHER_SHORTCUTS]}
          columns={SHORTCUT_COLUMNS}
          getRowId={(r) => r.keys.join(' ')}
        />
      </Dialog>
    </div>
  );
}
