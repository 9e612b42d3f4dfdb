/**
 * Updates from GitHub releases (electron-updater reads the `publish` block of
 * electron-builder.yml): checked at start and once a day, downloaded and installed only when the
 * user says so from the tray. The updater is injected, so this is tested without Electron.
 */
import type { UpdateInfo } from './state.js';

/** The part of electron-updater's AppUpdater used here. */
export interface Updater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdates(): Promise<unknown>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'update-available', listener: (info: { version: string }) => void): unknown;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

export const CHECK_EVERY_MS = 24 * 60 * 60 * 1000;
/** The first check waits a little: start-up has more urgent work. */
export const FIRST_CHECK_MS = 15_000;

export interface UpdatesDeps {
  report(update: UpdateInfo | null): void;
  notify(title: string, body: string): void;
  log(message: string): void;
  /**
   * Runs an install: stops the gateway, then calls `install` (the updater's quitAndInstall), and
   * restarts the gateway if the app is not replaced after all (quit-stages.ts).
   */
  handOver(install: () => void): Promise<void>;
  /** The updater reported an error; ends an install under way as failed. */
  failed(message: string): void;
  setTimer(fn: () => void, ms: number): () => void;
  setRepeat(fn: () => void, ms: number): () => void;
}

export class Updates {
  private current: UpdateInfo | null = null;
  private readonly cancels: (() => void)[] = [];

  constructor(
    private readonly updater: Updater,
    private readonly deps: UpdatesDeps,
  ) {
    updater.autoDownload = false;
    updater.autoInstallOnAppQuit = false;
    updater.on('update-available', (info) => {
      const known = this.current?.version === info.version;
      this.set({ version: info.version, downloaded: this.current?.downloaded === true && known });
      if (!known)
        deps.notify(`Tollgate ${info.version} is available`, 'Download it from the Tollgate menu in the tray.');
    });
    updater.on('update-downloaded', (info) => {
      this.set({ version: info.version, downloaded: true });
      deps.notify(
        `Tollgate ${info.version} is ready`,
        'Choose "Restart to install" in the tray menu when it suits you.',
      );
    });
    updater.on('error', (err) => {
      deps.log(`updater: ${err.message}`);
      deps.failed(err.message);
    });
  }

  private set(update: UpdateInfo | null): void {
    this.current = update;
    this.deps.report(update);
  }

  start(): void {
    this.cancels.push(this.deps.setTimer(() => void this.check(), FIRST_CHECK_MS));
    this.cancels.push(this.deps.setRepeat(() => void this.check(), CHECK_EVERY_MS));
  }

  stop(): void {
    for (const c of this.cancels.splice(0)) c();
  }

  async check(): Promise<void> {
    try {
      await this.updater.checkForUpdates();
    } catch (err) {
      this.deps.log(`update check failed: ${(err as Error).message}`);
    }
  }

  async download(): Promise<void> {
    try {
      await this.updater.downloadUpdate();
    } catch (err) {
      this.deps.notify('Tollgate: the update did not download', (err as Error).message);
    }
  }

  /** On the user's word only: the gateway stops cleanly first, then the installer runs. */
  async install(): Promise<void> {
    if (!this.current?.downloaded) return;
    await this.deps.handOver(() => this.updater.quitAndInstall(false, true));
  }
}
