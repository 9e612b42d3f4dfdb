/**
 * The app's state store and what the tray's actions do. It talks to the gateway only through the
 * admin API's typed client (gateway-api.ts) and to Electron only through the injected `shell` functions.
 */
import type { AdminClient } from '../gateway/contract/admin/index.js';
import { notices } from './notices.js';
import { saveSettings, type DesktopSettings } from './settings.js';
import { initialState, reduce, type Action, type AppState } from './state.js';
import type { MenuAction } from './tray-menu.js';

export interface Shell {
  render(state: AppState, settings: DesktopSettings): void;
  notify(title: string, body: string): void;
  copyText(text: string): void;
  /** `page`: a console route such as `/connect`; the start page when absent. */
  openConsole(page?: string): void;
  getLaunchAtLogin(): boolean;
  setLaunchAtLogin(on: boolean): boolean;
  checkUpdates(): void;
  downloadUpdate(): void;
  installUpdate(): void;
  /** Starts the gateway again after the supervisor gave up. */
  retryGateway(): void;
  openLogFolder(): void;
  quit(): void;
  log(message: string): void;
}

export class Controller {
  state: AppState;
  api: AdminClient | null = null;

  constructor(
    readonly dataDir: string,
    public settings: DesktopSettings,
    private readonly shell: Shell,
    now = Date.now(),
  ) {
    this.state = initialState(now);
  }

  dispatch(action: Action): void {
    const prev = this.state;
    this.state = reduce(prev, action);
    if (this.state === prev) return;
    for (const n of notices(prev, this.state, this.settings)) this.shell.notify(n.title, n.body);
    this.render();
  }

  render(): void {
    this.shell.render(this.state, this.settings);
  }

  /** Runs a tray action; failures become a notification, never an unhandled rejection. */
  async run(action: MenuAction): Promise<void> {
    try {
      await this.perform(action);
    } catch (err) {
      this.shell.log(`tray action ${action.kind} failed: ${(err as Error).message}`);
      this.shell.notify('Tollgate', (err as Error).message);
    }
  }

  private need(): AdminClient {
    if (!this.api) throw new Error('The gateway is not running.');
    return this.api;
  }

  private async perform(action: MenuAction): Promise<void> {
    switch (action.kind) {
      case 'set-key':
        const route = action.enabled ? 'enableKey' : 'disableKey';
        const { key } = await this.need().call(route, { params: { name: action.name } });
        this.dispatch({ type: 'key', key });
        return;
      case 'disable-all-keys': {
        const api = this.need();
        for (const k of this.state.keys.filter((x) => x.state === 'enabled'))
          this.dispatch({ type: 'key', key: (await api.call('disableKey', { params: { name: k.name } })).key });
        return;
      }
      case 'set-paused':
        const status = await this.need().call(action.paused ? 'pauseGateway' : 'resumeGateway');
        this.dispatch({ type: 'paused', paused: status.paused });
        return;
      case 'resume-session': {
        const body = action.addMicro !== undefined ? { addMicro: action.addMicro } : {};
        const { session } = await this.need().call('resumeSession', { params: { id: action.id }, body });
        this.dispatch({ type: 'session', session, notice: null });
        return;
      }
      case 'copy':
        this.shell.copyText(action.text);
        return;
      case 'open-console':
        this.shell.openConsole(action.page);
        return;
      case 'set-notification':
        this.settings = {
          ...this.settings,
          notifications: { ...this.settings.notifications, [action.which]: action.on },
        };
        saveSettings(this.dataDir, this.settings);
        this.render();
        return;
      case 'set-launch-at-login':
        this.shell.setLaunchAtLogin(action.on);
        this.render();
        return;
      case 'check-updates':
        this.shell.checkUpdates();
        return;
      case 'download-update':
        this.shell.downloadUpdate();
        return;
      case 'install-update':
        this.shell.installUpdate();
        return;
      case 'retry-gateway':
        this.shell.retryGateway();
        return;
      case 'open-log-folder':
        this.shell.openLogFolder();
        return;
      case 'quit':
        this.shell.quit();
        return;
    }
  }
}
