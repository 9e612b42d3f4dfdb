/**
 * Keeps the app state current from a running gateway: a snapshot first, then the gateway's live
 * event stream (`GET /api/events`, Server-Sent Events). A gateway without that stream (an older
 * `tollgate serve`) is polled instead. Today's spend is summed from the usage log once, then kept
 * up by each new log row. When the gateway stops answering, `onLost` tells the supervisor.
 */
import { createParser } from 'eventsource-parser';
import type { GatewayApi, GatewayStatus, KeyView, LineView, LogEntry, WalletView } from './gateway-api.js';
import { dayStartOf, type Action, type Snapshot, type Spend } from './state.js';

export interface FeedOptions {
  /** Polling interval where there is no event stream. */
  pollMs: number;
  /** Wait before reconnecting a dropped event stream. */
  retryMs: number;
  now(): number;
}

export const FEED_DEFAULTS: FeedOptions = { pollMs: 3_000, retryMs: 1_000, now: Date.now };

const PAGE = 1000;
/** At most this many pages are read to sum a day (a million rows); beyond, the figure is a floor. */
const MAX_PAGES = 1000;

/** Sums today's logged costs, newest rows first, down to local midnight. */
export async function spendSince(api: GatewayApi, dayStart: number): Promise<Spend> {
  let sum = 0;
  let lastLogId = 0;
  let before: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const rows = await api.logs(PAGE, before);
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

/** Log rows newer than `afterId`, oldest first. */
export async function logsAfter(api: GatewayApi, afterId: number): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  let before: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const rows = await api.logs(PAGE, before);
    for (const r of rows) {
      if (r.id <= afterId) return out.reverse();
      out.push(r);
    }
    if (rows.length < PAGE) break;
    before = rows[rows.length - 1]!.id;
  }
  return out.reverse();
}

function pausedOf(status: GatewayStatus): boolean | null {
  return typeof status.paused === 'boolean' ? status.paused : null;
}

export async function restSnapshot(api: GatewayApi): Promise<Snapshot> {
  const [status, wallet, keys, lines] = await Promise.all([api.status(), api.wallet(), api.keys(), api.lines()]);
  return { wallet, keys, lines, paused: pausedOf(status) };
}

/** One Server-Sent Event of `/api/events` as a state action; null for an event we do not know. */
export function eventToAction(event: string | undefined, data: string): Action | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (event) {
    case 'snapshot': {
      const status = body.status as GatewayStatus | undefined;
      return { type: 'snapshot', snapshot: { wallet: body.wallet as WalletView, keys: body.keys as KeyView[], lines: body.lines as LineView[], paused: status ? pausedOf(status) : null } };
    }
    case 'key':
      return { type: 'key', key: body.key as KeyView };
    case 'wallet':
      return { type: 'wallet', wallet: body.wallet as WalletView };
    case 'line':
      return { type: 'line', line: body.line as LineView };
    case 'log':
      return { type: 'log', entry: body.entry as LogEntry };
    default:
      return null;
  }
}

export class LiveFeed {
  private readonly abort = new AbortController();
  private lastLogId = 0;

  constructor(
    private readonly api: GatewayApi,
    private readonly dispatch: (action: Action) => void,
    private readonly onLost: () => void,
    private readonly opts: FeedOptions = FEED_DEFAULTS,
  ) {}

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.abort.abort();
  }

  private emit(action: Action): void {
    if (this.stopped) return;
    if (action.type === 'log') this.lastLogId = Math.max(this.lastLogId, action.entry.id);
    if (action.type === 'spend') this.lastLogId = Math.max(this.lastLogId, action.spend.lastLogId);
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
      await this.api.status(2_000);
      return true;
    } catch {
      return false;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let res: Response | null;
      try {
        res = await this.api.events(this.abort.signal);
      } catch {
        if (this.stopped) return;
        if (!(await this.alive())) return this.lose();
        await this.sleep(this.opts.retryMs);
        continue;
      }
      if (res === null) return this.poll();
      await this.follow(res);
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

  /** Reads one connection of the event stream until it ends. */
  private async follow(res: Response): Promise<void> {
    // Events that arrive while today's spend is summed wait, so no log row is counted twice or lost.
    let held: Action[] | null = null;
    const parser = createParser({
      onEvent: (ev) => {
        const action = eventToAction(ev.event, ev.data);
        if (!action) return;
        if (held) {
          held.push(action);
          return;
        }
        this.emit(action);
        if (action.type === 'snapshot') {
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
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // The connection dropped; run() decides whether the gateway is gone.
    }
  }

  /** No event stream: a REST snapshot and the new log rows every `pollMs`. */
  private async poll(): Promise<void> {
    this.emit({ type: 'feed', feed: 'polling' });
    let first = true;
    while (!this.stopped) {
      try {
        this.emit({ type: 'snapshot', snapshot: await restSnapshot(this.api) });
        if (first) {
          this.emit({ type: 'spend', spend: await spendSince(this.api, dayStartOf(this.opts.now())) });
          first = false;
        } else {
          for (const entry of await logsAfter(this.api, this.lastLogId)) this.emit({ type: 'log', entry });
        }
      } catch {
        if (this.stopped) return;
        if (!(await this.alive())) return this.lose();
      }
      await this.sleep(this.opts.pollMs);
    }
  }

  /** Refreshes the snapshot now (after a change made from the tray, where there is no event stream). */
  async refresh(): Promise<void> {
    this.emit({ type: 'snapshot', snapshot: await restSnapshot(this.api) });
  }
}
