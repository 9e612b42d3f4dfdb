/**
 * Launch at login, off until the user turns it on. macOS and Windows keep login items themselves
 * (Electron's setLoginItemSettings); Electron has no such API on Linux, where the freedesktop
 * autostart spec applies: a .desktop file in ~/.config/autostart.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LoginItemDeps {
  platform: NodeJS.Platform;
  /** Electron's login item on macOS and Windows. */
  getOs(): boolean;
  setOs(on: boolean): void;
  /** Linux: the autostart folder ($XDG_CONFIG_HOME/autostart) and the command that starts Tollgate. */
  autostartDir: string;
  command: string[];
}

export const AUTOSTART_FILE = 'dev.tollgate.app.desktop';

/** Quotes a path for a desktop entry's Exec key (freedesktop Desktop Entry spec, "The Exec key"). */
export function quoteExec(path: string): string {
  return `"${path.replace(/(["`$\\])/g, '\\$1')}"`;
}

export function autostartEntry(command: string[]): string {
  const exec = [...command.map(quoteExec), '--hidden'].join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Tollgate',
    'Comment=Local model gateway',
    `Exec=${exec}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export class LoginItem {
  constructor(private readonly deps: LoginItemDeps) {}

  private get file(): string {
    return join(this.deps.autostartDir, AUTOSTART_FILE);
  }

  get(): boolean {
    if (this.deps.platform !== 'linux') return this.deps.getOs();
    return existsSync(this.file) && readFileSync(this.file, 'utf8').includes('X-GNOME-Autostart-enabled=true');
  }

  /** Returns the state after the change. */
  set(on: boolean): boolean {
    if (this.deps.platform !== 'linux') this.deps.setOs(on);
    else if (on) {
      mkdirSync(this.deps.autostartDir, { recursive: true });
      writeFileSync(this.file, autostartEntry(this.deps.command));
    } else rmSync(this.file, { force: true });
    return this.get();
  }
}
