/**
 * Every page of the console, listed once: the navigation (components/layout.tsx), the keyboard
 * shortcuts and the help dialog that lists them, and the routes (app.tsx) all read this table, so a
 * page cannot be routed but missing from the sidebar, or the other way round. The order is the
 * sidebar's; `key` is the one-key shortcut (digits in sidebar order, `s` for Sessions, which came
 * after the ten digits were taken).
 */
import type { ComponentType } from 'react';
import type { NavEntry } from '../components/layout.js';
import { Overview } from './overview/index.js';
import { Wallet } from './wallet/index.js';
import { Keys } from './keys/index.js';
import { Logs } from './logs/index.js';
import { Sessions } from './sessions/index.js';
import { Models } from './models/index.js';
import { Lines } from './lines/index.js';
import { Groups } from './groups/index.js';
import { Playground } from './playground/index.js';
import { Connect } from './connect/index.js';
import { Settings } from './settings/index.js';

export interface PageEntry extends NavEntry {
  component: ComponentType;
  /** Further routes the same page serves (a session's detail). */
  subpaths?: string[];
}

export const PAGES: readonly PageEntry[] = [
  { path: '/', label: 'Overview', key: '1', component: Overview },
  { path: '/wallet', label: 'Wallet', key: '2', component: Wallet },
  { path: '/keys', label: 'Keys', key: '3', component: Keys },
  { path: '/logs', label: 'Usage log', key: '4', component: Logs },
  { path: '/sessions', label: 'Sessions', key: 's', component: Sessions, subpaths: ['/sessions/:id'] },
  { path: '/models', label: 'Models', key: '5', component: Models },
  { path: '/lines', label: 'Lines', key: '6', component: Lines },
  { path: '/groups', label: 'Groups', key: '7', component: Groups },
  { path: '/playground', label: 'Playground', key: '8', component: Playground },
  { path: '/connect', label: 'Connect', key: '9', component: Connect },
  { path: '/settings', label: 'Settings', key: '0', component: Settings },
];
