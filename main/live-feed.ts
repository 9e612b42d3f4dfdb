/**
 * Keeps the app state current from a running gateway: its live event stream (`GET /api/events`,
 * read with the admin client's event reader), a snapshot first and then each change. Today's spend
 * is the gateway's own sum (`GET /api/stats`, as the console's Overview asks it), asked again after
 * new log rows, at most once a second. A dropped stream is reconnected; when the gateway stops
 * answering, `onLost` tells the supervisor.
 */
import {
  adminEvents,
  type AdminClient,
  handleAdminEvent,
  type AdminEvent,
  type AdminEventHandlers,
} from '../gateway/contract/admin/index.js';
import { SESSIONS_ASKED } from './session-list.js';
import { dayStartOf, type Action, type Spend } from './state.js';

export interface FeedOptions {
  /** Wait before reconnecting a dropped event stream. */
  retryMs: number;
  /**
   * How often to ask which coding tools point here (`GET /api/connect`). Their files change
   * outside the gateway, so no event says so; a key created or deleted (a connect or disconnect)
   * asks at once.
   */
  toolsMs: number;
  /** Today's spend is asked again after new log rows, at most this often. */
  spendMs: number;
  now(): number;
}

export const FEED_DEFAULTS: FeedOptions = { retryMs: 1_000, toolsMs: 30_000, spendMs: 1_000, now: Date.now };

/**
 * Today's spend, local day, as the gateway sums it: `/api/stats` from local midnight to the next,
 * in days cut at this machine's offset, over every key (a request refused before a key was known
 * costs nothing, and its row is counted under no key).
 */
export async function spendToday(api: AdminClient, now: number): Promise<Spend> {
  const dayStart = dayStartOf(now);
  // The next midnight: 36 h on and back to its midnight is right on days of 23 and 25 hours too.
  const until = dayStartOf(dayStart + 36 * 3_600_000);
  const { rows } = await api.call('getStats', {
    query: { since: dayStart, until, bucket: 'day', by: 'key', tz: -new Date(dayStart).getTimezoneOffset() },
  });
  return { spentTodayMicro: rows.reduce((sum, r) => sum + r.costMicro, 0), dayStart };
}

/** Each event of `/api/events` (ADMIN_EVENTS) as a state action; a log row changes nothing but the spend, asked anew. */
const ACTIONS: AdminEventHandlers<Action | null> = {
  snapshot: (d) => ({
    type: 'snapshot',
    snapshot: { wallet: d.wallet, keys: d.keys, lines: d.lines, paused: d.status.paused, settings: d.settings },
  }),
  status: (d) => ({ type: 'paused', paused: d.status.paused }),
  key: (d) => ({ type: 'key', key: d.key }),
  wallet: (d) => ({ type: 'wallet', wallet: d.wallet }),
  line: (d) => ({ type: 'line', line: d.line }),
  settings: (d) => ({ type: 'settings', settings: d.settings }),
  log: () => null,
  session: (d) => ({ type: 'session', session: d.session, notice: d.notice }),
};

export function eventToAction(e: AdminEvent): Action | null {
  return handleAdminEvent(ACTIONS, e);
}

export class LiveFeed {
  private readonly abort = new AbortController();
  private toolsTimer: NodeJS.Timeout | undefined;
  private toolsSoon: NodeJS.Timeout | undefined;
  private spendTimer: NodeJS.Timeout | undefined;
  private spendBusy = false;
  private spendAgain = false;
  private spendAsked = -Infinity;

  constructor(
    private readonly api: AdminClient,
    private readonly dispatch: (action: Action) => void,
    private readonly onLost: () => void,
    options: Partial<FeedOptions> = {},
  ) {
    this.opts = { ...FEED_DEFAULTS, ...options };
  }

  private readonly opts: FeedOptions;

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  start(): void {
    this.toolsTimer = setInterval(() => void this.refreshTools(), this.opts.toolsMs);
    this.toolsTimer.unref();
    void this.run();
  }

  stop(): void {
    this.abort.abort();
    clearInterval(this.toolsTimer);
    clearTimeout(this.toolsSoon);
    clearTimeout(this.spendTimer);
  }

  /**
   * Asks for today's spend, at most once per `spendMs`: a burst of log rows makes one question at
   * its start and one after it, and the figure shown is always the gateway's own sum.
   */
  private refreshSpend(): void {
    if (this.stopped || this.spendTimer) return;
    if (this.spendBusy) {
      this.spendAgain = true;
      return;
    }
    const wait = this.spendAsked + this.opts.spendMs - this.opts.now();
    if (wait > 0) {
      this.spendTimer = setTimeout(() => {
        this.spendTimer = undefined;
        this.refreshSpend();
      }, wait);
      return;
    }
    this.spendBusy = true;
    this.spendAsked = this.opts.now();
    void spendToday(this.api, this.spendAsked)
      .then((spend) => this.emit({ type: 'spend', spend }))
      .catch(() => undefined) // the gateway may be busy or going; the next row asks again
      .finally(() => {
        this.spendBusy = false;
        if (!this.spendAgain) return;
        this.spendAgain = false;
        this.refreshSpend();
      });
  }

  /**
   * The sessions running now, from the gateway's list: the events tell only of changes, so a tray
   * that starts (or reconnects) while agents run would otherwise show none of them until each
   * makes its next request. A failure keeps what is known; the next connect asks again.
   */
  private async refreshSessions(): Promise<void> {
    try {
      const { sessions } = await this.api.call('listSessions', { query: { limit: SESSIONS_ASKED } });
      this.emit({ type: 'sessions', sessions });
    } catch {
      // The gateway may be busy or going.
    }
  }

  /** Which coding tools point here; a failure keeps the last answer until the next look. */
  private async refreshTools(): Promise<void> {
    try {
      this.emit({ type: 'tools', tools: (await this.api.call('connectStatus')).tools });
    } catch {
      // The gateway may be busy or going; the next look asks again.
    }
  }

  private emit(action: Action): void {
    if (this.stopped) return;
    this.dispatch(action);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.abort.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }

  private async alive(): Promise<boolean> {
    try {
      await this.api.call('getStatus', { timeoutMs: 2_000 });
      return true;
    } catch {
      return false;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.follow();
      if (this.stopped) return;
      if (!(await this.alive())) return this.lose();
      await this.sleep(this.opts.retryMs);
    }
  }

  private lose(): void {
    if (this.stopped) return;
    this.emit({ type: 'feed', feed: 'offline' });
    this.stop();
    this.onLost();
  }

  /** Reads one connection of the event stream until it ends, is refused or drops. */
  private async follow(): Promise<void> {
    try {
      for await (const event of adminEvents(this.api, this.abort.signal)) {
        const action = eventToAction(event);
        if (action) this.emit(action);
        if (event.event === 'log') this.refreshSpend();
        if (action?.type === 'key' && !this.toolsSoon) {
          // A connect creates its tool's key, a disconnect deletes it: look once the burst is over.
          this.toolsSoon = setTimeout(() => {
            this.toolsSoon = undefined;
            void this.refreshTools();
          }, 300);
        }
        if (action?.type === 'snapshot') {
          void this.refreshTools();
          void this.refreshSessions();
          this.emit({ type: 'feed', feed: 'live' });
          this.refreshSpend();
        }
      }
    } catch {
      // Refused, dropped or malformed: run() decides whether the gateway is gone.
    }
  }
}
