/**
 * `GET /api/events`: what changes, as Server-Sent Events, for the console and the tray. Every event
 * and its data are those of the table ADMIN_EVENTS (gateway/contract/admin/events.ts): a new
 * subscriber first gets `snapshot`, then `log`, `wallet`, `key`, `line`, `status` and `settings` as
 * things change.
 *
 * Changes are found by looking, twice a second while anyone listens, rather than by hooks in every
 * place that writes: that catches every writer (the CLI, the admin API, settlements, a breaker
 * opening or closing) with no coupling, at the cost of up to half a second of delay. The look is
 * done once per tick for all subscribers. Pausing is the exception: it has one writer, which says
 * so at once, so that a pause and a resume in quick succession are both seen, in order.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Gateway } from '../compose/gateway.js';
import type { AdminEventData, AdminEventName, KeyView, LineView, StatusView } from '../contract/admin/index.js';
import { listKeys } from '../operations/keys.js';
import { listLines } from '../operations/lines.js';
import { settingsView } from '../operations/settings.js';
import { wallet } from '../operations/wallet.js';
import { sessionView } from '../operations/sessions.js';
import type { SessionNoticeView } from '../contract/admin/index.js';

const TICK_MS = 500;
/** Rows sent per tick at most; a burst beyond it is sent over the next ticks. */
const LOG_BATCH = 500;
/** A comment line now and then keeps proxies and idle timers from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * The most a subscriber may leave unread (bytes queued in the process, past what the kernel's
 * socket buffers hold). A reader that stops reading (a frozen tab, a hostile local process) would
 * otherwise make the gateway keep every event for it forever. Past the bound its stream is cut; an
 * EventSource reconnects by itself and starts again from a fresh snapshot. Far above an honest
 * burst: a tick sends at most LOG_BATCH rows of a few hundred bytes each.
 */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/** Sends one event of the table, with its data. */
type Send = <E extends AdminEventName>(event: E, data: AdminEventData<E>) => void;

interface Subscriber {
  send: Send;
  /** Ends the stream (the gateway is closing). */
  end(): void;
}

/** What a line looks like for change detection: its countdown changes every tick, so only whether it waits counts. */
function lineSignature(l: LineView): string {
  return JSON.stringify({ ...l, health: { ...l.health, waitMs: l.health.waitMs > 0 } });
}

export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private timer: NodeJS.Timeout | undefined;
  private lastLogId = 0;
  private keys = new Map<string, string>();
  private lines = new Map<string, { sig: string; view: LineView }>();
  private walletSig = '';
  private settingsSig = '';
  private readonly unwatchPause: () => void;
  private readonly unwatchSessions: () => void;
  /** Sessions changed since the last tick, with the notices to send about each (in order). */
  private sessionChanges = new Map<string, SessionNoticeView[]>();

  constructor(
    private readonly g: Gateway,
    private readonly status: () => StatusView,
  ) {
    this.unwatchPause = g.pause.onChange(() => this.broadcast('status', { status: this.status() }));
    // Sent at the next tick, when the session's row is committed: a burst of requests is one update.
    this.unwatchSessions = g.sessions.onChange((c) => {
      if (this.subscribers.size === 0) return;
      const notices = this.sessionChanges.get(c.sessionId) ?? [];
      if (c.notice) notices.push(c.notice);
      this.sessionChanges.set(c.sessionId, notices);
    });
  }

  /** Adds a subscriber, sends it the snapshot, and returns how to remove it. */
  subscribe(sub: Subscriber): () => void {
    if (this.subscribers.size === 0) this.prime();
    this.subscribers.add(sub);
    sub.send('snapshot', {
      status: this.status(),
      wallet: wallet(this.g),
      keys: listKeys(this.g),
      lines: listLines(this.g),
      settings: this.settings(),
    });
    this.timer ??= setInterval(() => this.tick(), TICK_MS);
    return () => {
      this.subscribers.delete(sub);
      if (this.subscribers.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Ends every stream, so that the server can close. */
  close(): void {
    this.unwatchPause();
    this.unwatchSessions();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const sub of this.subscribers) sub.end();
    this.subscribers.clear();
  }

  /** The state a first subscriber's snapshot shows; changes are counted from here. */
  private prime(): void {
    this.lastLogId = this.g.ledger.reports.logs({ limit: 1 })[0]?.id ?? 0;
    this.keys = new Map(listKeys(this.g).map((k) => [k.id, JSON.stringify(k)]));
    this.lines = new Map(listLines(this.g).map((l) => [l.id, { sig: lineSignature(l), view: l }]));
    this.walletSig = JSON.stringify(wallet(this.g));
    this.settingsSig = JSON.stringify(this.settings());
  }

  private settings() {
    return settingsView(this.g, this.status().url);
  }

  private broadcast<E extends AdminEventName>(event: E, data: AdminEventData<E>): void {
    for (const sub of this.subscribers) sub.send(event, data);
  }

  private tick(): void {
    const fresh = this.g.ledger.reports.logs({ limit: LOG_BATCH, afterId: this.lastLogId });
    for (const entry of fresh) this.broadcast('log', { entry });
    if (fresh.length > 0) this.lastLogId = fresh[fresh.length - 1]!.id;

    const changed = this.sessionChanges;
    this.sessionChanges = new Map();
    for (const [id, notices] of changed) {
      const rec = this.g.ledger.sessions.get(id);
      if (!rec) {
        // Its first row is not committed yet: next tick.
        this.sessionChanges.set(id, notices);
        continue;
      }
      const session = sessionView(this.g, rec);
      if (notices.length === 0) this.broadcast('session', { session, notice: null });
      for (const notice of notices) this.broadcast('session', { session, notice });
    }

    const w = wallet(this.g);
    const wSig = JSON.stringify(w);
    if (wSig !== this.walletSig) {
      this.walletSig = wSig;
      this.broadcast('wallet', { wallet: w });
    }

    const settings = this.settings();
    const sSig = JSON.stringify(settings);
    if (sSig !== this.settingsSig) {
      this.settingsSig = sSig;
      this.broadcast('settings', { settings });
    }

    const keys = listKeys(this.g);
    const seenKeys = new Set<string>();
    for (const key of keys) {
      seenKeys.add(key.id);
      const sig = JSON.stringify(key);
      if (this.keys.get(key.id) !== sig) {
        this.keys.set(key.id, sig);
        this.broadcast('key', { key });
      }
    }
    for (const [id, sig] of this.keys) {
      if (seenKeys.has(id)) continue;
      // A deleted key leaves the list; say so once, as the key in its last state.
      this.keys.delete(id);
      this.broadcast('key', { key: { ...(JSON.parse(sig) as KeyView), state: 'deleted' } });
    }

    const lines = listLines(this.g);
    const seenLines = new Set<string>();
    for (const line of lines) {
      seenLines.add(line.id);
      const sig = lineSignature(line);
      if (this.lines.get(line.id)?.sig !== sig) this.broadcast('line', { line });
      this.lines.set(line.id, { sig, view: line });
    }
    for (const [id, { view }] of this.lines) {
      if (seenLines.has(id)) continue;
      this.lines.delete(id);
      this.broadcast('line', { line: view, removed: true });
    }
  }
}

/** The SSE route, inside the admin scope (its guard has already let the caller in). */
export function eventRoutes(app: FastifyInstance, hub: EventHub): void {
  app.get('/api/events', async (req, reply: FastifyReply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const send: Send = (event, data) => {
      if (res.destroyed) return;
      if (res.writableLength > MAX_UNREAD_BYTES) {
        res.destroy();
        return;
      }
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const unsubscribe = hub.subscribe({ send, end: () => res.end() });
    const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    req.raw.on('close', () => {
      clearInterval(keepalive);
      unsubscribe();
    });
  });
}
