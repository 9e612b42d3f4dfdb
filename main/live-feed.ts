/**
 * Keeps the app state current from a running gateway: its live event stream (`GET /api/events`,
 * read with the admin client's event reader), a snapshot first and then each change. Today's spend
 * is summed from the usage log once, then kept up by each new log row. A dropped stream is
 * reconnected; when the gateway stops answering, `onLost` tells the supervisor.
 */
import {
  adminEvents,
  type AdminClient,
  handleAdminEvent,
  type AdminEvent,
  type AdminEventHandlers,
} from '../gateway/contract/admin/index.js';
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
  now(): number;
}

export const FEED_DEFAULTS: FeedOptions = { retryMs: 1_000, toolsMs: 30_000, now: Date.now };

const PAGE = 1000;
/** At most this many pages are read to sum a day (a million rows); beyond, the figure is a floor. */
const MAX_PAGES = 1000;

/** Sums today's logged costs, newest rows first, down to local midnight. */
export async function spendSince(api: AdminClient, dayStart: number): Promise<Spend> {
  let sum = 0;
  let lastLogId = 0;
  let before: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { entries: rows } = await api.call('listLogs', { query: { limit: PAGE, before } });
    if (page === 0 && rows[0]) lastLogId = rows[0].id;
    for (const r of rows) {
      if (r.ts < dayStart) return { spentTodayMicro: sum, dayStart, lastLogId };
      sum += r.costMicro;
    }
    if (rows.length < PAGE) break;
    before = rows[rows.length - 1]!.id;
  }
  return { spentTodayMicro: sum, dayStart, lastLogId };
}

/** Each event of `/api/events` (ADMIN_EVENTS) as a state action. */
const ACTIONS: AdminEventHandlers<Action> = {
  snapshot: (d) => ({
    type: 'snapshot',
    snapshot: { wallet: d.wallet, keys: d.keys, lines: d.lines, paused: d.status.paused },
  }),
  status: (d) => ({ type: 'paused', paused: d.status.paused }),
  key: (d) => ({ type: 'key', key: d.key }),
  wallet: (d) => ({ type: 'wallet', wallet: d.wallet }),
  line: (d) => ({ type: 'line', line: d.line }),
  log: (d) => ({ type: 'log', entry: d.entry }),
  session: (d) => ({ type: 'session', session: d.session, notice: d.notice }),
};

export function eventToAction(e: AdminEvent): Action {
  return handleAdminEvent(ACTIONS, e);
}

export class LiveFeed {
  private readonly abort = new AbortController();
  private toolsTimer: NodeJS.Timeout | undefined;
  private toolsSoon: NodeJS.Timeout | undefined;

  constructor(
    private readonly api: AdminClient,
    private readonly dispatch: (action: Action) => void,
    private readonly onLost: () => void,
    private readonly opts: FeedOptions = FEED_DEFAULTS,
  ) {}

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
    // Events that arrive while today's spend is summed wait, so no log row is counted twice or lost.
    let held: Action[] | null = null;
    try {
      for await (const event of adminEvents(this.api, this.abort.signal)) {
        const action = eventToAction(event);
        if (held) {
          held.push(action);
          continue;
        }
        this.emit(action);
        if (action.type === 'key' && !this.toolsSoon) {
          // A connect creates its tool's key, a disconnect deletes it: look once the burst is over.
          this.toolsSoon = setTimeout(() => {
            this.toolsSoon = undefined;
            void this.refreshTools();
          }, 300);
        }
        if (action.type === 'snapshot') {
          void this.refreshTools();
          this.emit({ type: 'feed', feed: 'live' });
          held = [];
          void spendSince(this.api, dayStartOf(this.opts.now()))
            .then((spend) => this.emit({ type: 'spend', spend }))
            .catch(() => undefined)
            .finally(() => {
              const queued = held ?? [];
              held = null;
              for (const a of queued) this.emit(a);
            });
        }
      }
    } catch {
      // Refused, dropped or malformed: run() decides whether the gateway is gone.
    }
  }
}
