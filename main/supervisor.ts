/**
 * Keeps one gateway running for the data dir: attaches to a `tollgate serve` that already runs for
 * it, else starts our own gateway process, and restarts that process with backoff when it dies.
 * A gateway that dies every time it starts (a port another program holds, a native module built
 * for the wrong runtime) is not restarted for ever: after `maxFailures` quick deaths in a row the
 * supervisor stops trying and says why, until the user asks it to try again.
 * Electron-free (the process comes from an injected `spawn`), so it is unit-tested with fakes.
 */
import type { GatewayPhase } from './state.js';

/** Where a gateway answers and the admin token it takes. */
export interface Endpoint {
  url: string;
  token: string;
}

export interface GatewayChild {
  /** Resolves once the gateway listens; never resolves if the process dies first. */
  ready: Promise<Endpoint>;
  /** Resolves when the process has exited, with a short reason for the tray. */
  exited: Promise<{ code: number | null; reason: string }>;
  /** Asks the gateway to close (requests in flight settle), waits for the exit, kills it after graceMs. */
  stop(graceMs: number): Promise<void>;
}

export interface SupervisorDeps {
  /** A gateway already serving this data dir (attach-or-start), or null. */
  findRunning(): Promise<Endpoint | null>;
  spawn(): GatewayChild;
  /** Every phase change, with the endpoint to talk to while running. */
  onPhase(phase: GatewayPhase, endpoint: Endpoint | null): void;
  setTimer(fn: () => void, ms: number): () => void;
  now(): number;
}

export const BACKOFF = {
  /** First restart after this long, doubling each time… */
  baseMs: 1_000,
  /** …up to this. */
  maxMs: 60_000,
  /** A process that ran this long was healthy: the next failure starts the count afresh. */
  stableMs: 60_000,
  /** After this many quick deaths in a row (about half a minute of trying), stop and say why. */
  maxFailures: 6,
};

/** Delay before restart attempt `attempt` (1, 2, 3…): 1 s, 2 s, 4 s … capped at a minute. */
export function restartDelayMs(attempt: number, policy = BACKOFF): number {
  return Math.min(policy.baseMs * 2 ** Math.max(0, attempt - 1), policy.maxMs);
}

/** The attempt number after a process that ran `ranForMs` died. */
export function nextAttempt(previous: number, ranForMs: number, policy = BACKOFF): number {
  return ranForMs >= policy.stableMs ? 1 : previous + 1;
}

export class Supervisor {
  private child: GatewayChild | null = null;
  private endpoint: Endpoint | null = null;
  private attempt = 0;
  private cancelTimer: (() => void) | null = null;
  private stopping = false;
  private stopped: Promise<void> | null = null;
  private phase: GatewayPhase = { kind: 'starting' };
  /** Our process being stopped by restart(), which a stop() must wait for too. */
  private replacing: Promise<void> | null = null;

  constructor(
    private readonly deps: SupervisorDeps,
    private readonly policy = BACKOFF,
  ) {}

  get current(): { phase: GatewayPhase; endpoint: Endpoint | null } {
    return { phase: this.phase, endpoint: this.endpoint };
  }

  private set(phase: GatewayPhase, endpoint: Endpoint | null): void {
    this.phase = phase;
    this.endpoint = endpoint;
    this.deps.onPhase(phase, endpoint);
  }

  /** Attach to a running gateway for the data dir, or start ours. */
  async start(): Promise<void> {
    if (this.stopping || this.child) return;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.set({ kind: 'starting' }, null);
    let found: Endpoint | null = null;
    try {
      found = await this.deps.findRunning();
    } catch {
      found = null;
    }
    if (this.stopping || this.child) return;
    if (found) {
      this.set({ kind: 'running', url: found.url, owned: false }, found);
      return;
    }
    this.launch();
  }

  private launch(): void {
    const startedAt = this.deps.now();
    let child: GatewayChild;
    try {
      child = this.deps.spawn();
    } catch (err) {
      // The process could not even be created (a missing entry file, a refused fork): a failure
      // like any other, counted and retried.
      this.attempt = nextAttempt(this.attempt, 0, this.policy);
      this.afterFailure(`could not start the gateway process: ${(err as Error).message}`);
      return;
    }
    this.child = child;
    void child.ready.then((ep) => {
      if (this.child === child && !this.stopping) this.set({ kind: 'running', url: ep.url, owned: true }, ep);
    });
    void child.exited.then(({ reason }) => {
      if (this.child !== child) return;
      this.child = null;
      if (this.stopping) return;
      this.attempt = nextAttempt(this.attempt, this.deps.now() - startedAt, this.policy);
      this.afterFailure(reason);
    });
  }

  private afterFailure(reason: string): void {
    if (this.attempt >= this.policy.maxFailures) this.set({ kind: 'failed', failures: this.attempt, reason }, null);
    else this.scheduleRestart(reason);
  }

  private scheduleRestart(reason: string): void {
    const inMs = restartDelayMs(this.attempt, this.policy);
    this.set({ kind: 'restarting', attempt: this.attempt, inMs, reason }, null);
    this.cancelTimer = this.deps.setTimer(() => {
      this.cancelTimer = null;
      void this.start();
    }, inMs);
  }

  /**
   * The attached `tollgate serve` stopped answering: look again, and start our own gateway if it
   * is gone. (Our own process reports its death through `exited`.)
   */
  async lost(): Promise<void> {
    if (this.stopping || this.child || this.phase.kind !== 'running') return;
    await this.start();
  }

  /** The user's "Try again": a fresh count, and a start now rather than after the pending delay. */
  async retry(): Promise<void> {
    if (this.stopping || this.child) return;
    if (this.phase.kind !== 'failed' && this.phase.kind !== 'restarting') return;
    this.attempt = 0;
    await this.start();
  }

  /**
   * Runs again after `stop()`: an update that was to replace the app did not install, so the app
   * stays and needs its gateway back.
   */
  async resume(): Promise<void> {
    if (!this.stopping || this.phase.kind !== 'stopped') return;
    this.stopping = false;
    this.stopped = null;
    this.attempt = 0;
    await this.start();
  }

  /**
   * Stops our own gateway process and starts a new one, which binds the host and port its settings
   * name now. Refused (false) unless our own process is running: an attached `tollgate serve` is
   * restarted where it runs. A stop() meanwhile (quitting) waits for the old process and starts nothing.
   */
  async restart(graceMs: number): Promise<boolean> {
    const child = this.child;
    if (this.stopping || !child || this.phase.kind !== 'running' || !this.phase.owned) return false;
    this.child = null;
    this.set({ kind: 'starting' }, null);
    this.replacing = child.stop(graceMs);
    await this.replacing;
    this.replacing = null;
    if (this.stopping) return true;
    this.attempt = 0;
    await this.start();
    return true;
  }

  /** Stops our gateway (an attached one is left running: it is not ours). */
  stop(graceMs: number): Promise<void> {
    // A second stop while the first runs waits for the same one.
    if (this.stopping) return this.stopped ?? Promise.resolve();
    this.stopping = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    const child = this.child;
    this.set({ kind: 'stopping' }, null);
    this.stopped = (async () => {
      if (child) await child.stop(graceMs);
      await this.replacing;
      this.child = null;
      this.set({ kind: 'stopped' }, null);
    })();
    return this.stopped;
  }
}
