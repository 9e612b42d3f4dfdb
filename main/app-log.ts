/**
 * The app's log file: what main does and what the gateway process prints, one timestamped line
 * each, in the OS log folder (docs/desktop.md, "The app log"). A packaged app has no terminal, so
 * without it a failure the tray can only summarise would leave no trace.
 *
 * Nothing secret goes in: every line passes through the gateway's own masking of key shapes and
 * auth headers (`maskSecrets`), and the one-time login codes main handles are masked too.
 * Writes are synchronous so the last lines before a crash are on disk; the volume is small (main's
 * events and the gateway's warnings, not one line per request). The file is capped: past
 * `maxBytes` it is renamed to `main.old.log` (replacing the previous one) and a new one begins.
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { maskSecrets } from '../gateway/desktop.js';

export const LOG_FILE = 'main.log';
export const OLD_LOG_FILE = 'main.old.log';
export const MAX_LOG_BYTES = 5 * 1024 * 1024;
/** A line longer than this is cut: a runaway message must not fill the file. */
export const MAX_LINE_CHARS = 4_000;

/** A line as it may be written: credentials and login codes masked, control characters shown, length capped. */
export function sanitiseLogLine(line: string): string {
  const masked = maskSecrets(line).replace(/([?&#](?:code|token|console)=)[^&#\s"']+/gi, '$1[redacted]');
  const flat = masked.replace(/\r?\n/g, ' ⏎ ').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '�');
  return flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS)}… (${flat.length} characters)` : flat;
}

/**
 * The log folder: the OS's (Electron's `app.getPath('logs')`: ~/Library/Logs/Tollgate on macOS,
 * the app-data folder's `logs` on Windows and Linux), except for a data dir chosen with
 * TOLLGATE_DATA_DIR, which keeps its log beside it, so a second, separate instance (a test, a
 * portable setup) does not write into the user's.
 */
export function logDir(env: NodeJS.ProcessEnv, osLogs: string, dataDir: string): string {
  return env.TOLLGATE_DATA_DIR ? join(dataDir, 'logs') : osLogs;
}

export class AppLog {
  private fd: number | null = null;
  private size = 0;
  /** Set after the first write failure: the app runs on without its log, and says so once. */
  private broken = false;

  constructor(
    readonly dir: string,
    private readonly maxBytes = MAX_LOG_BYTES,
    private readonly now: () => Date = () => new Date(),
    private readonly echo: ((line: string) => void) | null = null,
  ) {}

  get path(): string {
    return join(this.dir, LOG_FILE);
  }

  private open(): number {
    if (this.fd !== null) return this.fd;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = existsSync(this.path) ? statSync(this.path).size : 0;
    return this.fd;
  }

  private rotate(): void {
    this.close();
    renameSync(this.path, join(this.dir, OLD_LOG_FILE));
  }

  write(message: string): void {
    const line = `${this.now().toISOString()} ${sanitiseLogLine(message)}\n`;
    try {
      this.echo?.(line);
    } catch {
      // A console that is gone is no reason to lose the line in the file.
    }
    if (this.broken) return;
    try {
      const bytes = Buffer.byteLength(line);
      this.open();
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      writeSync(this.open(), line);
      this.size += bytes;
    } catch (err) {
      this.broken = true;
      this.close();
      process.stderr.write(`[tollgate] the app log ${this.path} cannot be written: ${(err as Error).message}\n`);
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } finally {
      this.fd = null;
    }
  }
}
