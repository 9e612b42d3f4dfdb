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

/**
 * How an update reaches this copy of the app. `in-place`: electron-updater downloads and installs
 * it. `download-page`: the user downloads the new version from the release page; for a macOS
 * build signed ad hoc, whose updates the native updater refuses (it accepts only a new version
 * signed by the same Developer ID), so offering "Restart to install" there would only fail.
 */
export type InstallMode = { kind: 'in-place' } | { kind: 'download-page'; releasesUrl: string };

/**
 * The install mode a packaged app was built for: the release workflow marks an ad-hoc signed
 * macOS build in its package.json (`tollgate.updates`, .ci/package-app.ts).
 */
export function installModeOf(packageJson: unknown): InstallMode {
  const t = (packageJson as { tollgate?: { updates?: unknown; releasesUrl?: unknown } } | null)?.tollgate;
  if (t?.updates === 'download-page' && typeof t.releasesUrl === 'string' && t.releasesUrl.startsWith('https://'))
    return { kind: 'download-page', releasesUrl: t.releasesUrl };
  return { kind: 'in-place' };
}

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
  mode?: InstallMode;
  /** Opens a release page in the browser (download-page mode). */
  openExternal?(url: string): Promise<void>;
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
    const mode = this.deps.mode ?? { kind: 'in-place' };
    if (mode.kind === 'download-page') {
      if (!this.current) return;
      await this.deps.openExternal?.(`${mode.releasesUrl}/tag/v${encodeURIComponent(this.current.version)}`);
      return;
    }
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
