/**
 * Which desktop notifications a change of state deserves: the balance falling below the
 * gateway's threshold, a key's quota passing 90 %, a line's circuit opening. Only crossings seen while
 * running notify; a state first learnt from a snapshot (at start, after a restart) does not, so a
 * restart never repeats old news. Pure; index.ts shows them.
 */
import { usd } from '../gateway/contract/money.js';
import type { DesktopSettings, NoticeKind } from './settings.js';
import { lowBalanceOf, type AppState } from './state.js';

export interface Notice {
  kind: NoticeKind;
  title: string;
  body: string;
}

/** A key's quota counts as nearly used from this share on. */
export const QUOTA_WARN_SHARE = 0.9;

function nearlyUsed(k: { quotaMicro: number | null; usedMicro: number }): boolean {
  return k.quotaMicro !== null && k.quotaMicro > 0 && k.usedMicro >= k.quotaMicro * QUOTA_WARN_SHARE;
}

export function notices(prev: AppState, next: AppState, settings: DesktopSettings): Notice[] {
  const out: Notice[] = [];
  const on = settings.notifications;
  // The gateway's threshold (its Settings); a change of the threshold alone is not news, a falling balance is.
  const low = lowBalanceOf(next);

  if (
    on.lowBalance &&
    low !== null &&
    prev.wallet &&
    next.wallet &&
    prev.wallet.balanceMicro >= low &&
    next.wallet.balanceMicro < low
  ) {
    out.push({
      kind: 'lowBalance',
      title: 'Tollgate: low balance',
      body: `The wallet holds ${usd(next.wallet.balanceMicro)}. Top it up in the console before requests get 402.`,
    });
  }

  if (on.keyQuota) {
    const before = new Map(prev.keys.map((k) => [k.id, k]));
    for (const k of next.keys) {
      const was = before.get(k.id);
      if (was && !nearlyUsed(was) && nearlyUsed(k)) {
        out.push({
          kind: 'keyQuota',
          title: `Tollgate: key "${k.name}" nearly at its quota`,
          body: `${usd(k.usedMicro)} of ${usd(k.quotaMicro!)} used.`,
        });
      }
    }
  }

  if (on.lineDown) {
    const before = new Map(prev.lines.map((l) => [l.id, l]));
    for (const l of next.lines) {
      const was = before.get(l.id);
      // From closed only: a line that stays down goes open → half-open (one probe) → open again
      // every cycle, and that is the same outage, not news.
      if (was && was.health.state === 'closed' && l.health.state === 'open') {
        out.push({
          kind: 'lineDown',
          title: `Tollgate: line "${l.name}" is down`,
          body: `${l.health.failures} failures in a row; requests go to other lines for now, and it is retried in ${Math.ceil(l.health.waitMs / 1000)} s.`,
        });
      }
    }
  }
  // A session's warning, pause or resume (the gateway sends each once), under the quota switch:
  // both say that spending is nearing or past a limit.
  const n = next.sessionNotice;
  if (on.keyQuota && n && n.seq !== prev.sessionNotice?.seq) {
    const title =
      n.notice.kind === 'paused'
        ? 'Tollgate: session paused'
        : n.notice.kind === 'warning'
          ? 'Tollgate: spending nears a limit'
          : 'Tollgate: session resumed';
    out.push({ kind: 'keyQuota', title, body: n.notice.message });
  }
  return out;
}
