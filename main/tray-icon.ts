/**
 * Which tray icon and tooltip a state gets. The icons live in assets/tray/ (assets/README.md):
 * colour badges on Windows and Linux, template images (black with alpha, tinted by macOS) on macOS.
 */
import { usd } from '../gateway/contract/money.js';
import { statusLines } from './tray-menu.js';
import { lowBalanceOf, type AppState } from './state.js';

export type TrayIconState = 'running' | 'paused' | 'low' | 'error';

/** Error beats paused beats low balance (below the gateway's threshold setting): the most urgent thing shows. */
export function trayIconState(state: AppState): TrayIconState {
  const p = state.phase.kind;
  if (p === 'restarting' || p === 'stopped' || p === 'failed') return 'error';
  if (p !== 'running' || state.paused) return 'paused';
  const low = lowBalanceOf(state);
  if (state.wallet && low !== null && state.wallet.balanceMicro < low) return 'low';
  return 'running';
}

/** File name under assets/tray/: `running.png` (Windows, Linux) or `runningTemplate.png` (macOS). */
export function trayIconFile(icon: TrayIconState, platform: NodeJS.Platform): string {
  return platform === 'darwin' ? `${icon}Template.png` : `${icon}.png`;
}

export function trayTooltip(state: AppState): string {
  const lines = statusLines(state);
  if (trayIconState(state) === 'low' && state.wallet) lines.push(`Low balance: ${usd(state.wallet.balanceMicro)}`);
  return lines.join('\n');
}
