/** The tray icon and its menu, rebuilt from the app state (tray-menu.ts) on every change. */
import { join } from 'node:path';
import { Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import { trayClickOpensConsole } from './platform.js';
import type { AppState } from './state.js';
import { buildTrayMenu, type MenuAction, type MenuInput, type MenuItem } from './tray-menu.js';
import { trayIconFile, trayIconState, trayTooltip } from './tray-icon.js';

/** Menu data → Electron's template; each action goes to `run`. */
export function toTemplate(items: MenuItem[], run: (action: MenuAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.type) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => run(item.action) };
      case 'checkbox':
        return {
          type: 'checkbox',
          label: item.label,
          checked: item.checked,
          enabled: item.enabled,
          click: () => run(item.action),
        };
      case 'submenu':
        return { label: item.label, submenu: toTemplate(item.items, run) };
    }
  });
}

export class TrayView {
  private readonly tray: Tray;
  private shownIcon = '';

  constructor(
    private readonly trayDir: string,
    private readonly run: (action: MenuAction) => void,
    onClick: () => void,
  ) {
    this.tray = new Tray(this.image('paused'));
    if (trayClickOpensConsole(process.platform)) this.tray.on('click', onClick);
  }

  private image(name: Parameters<typeof trayIconFile>[0]): Electron.NativeImage {
    const img = nativeImage.createFromPath(join(this.trayDir, trayIconFile(name, process.platform)));
    if (process.platform === 'darwin') img.setTemplateImage(true);
    return img;
  }

  render(input: MenuInput & { state: AppState }): void {
    const icon = trayIconState(input.state);
    if (icon !== this.shownIcon) {
      this.tray.setImage(this.image(icon));
      this.shownIcon = icon;
    }
    this.tray.setToolTip(trayTooltip(input.state));
    this.tray.setContextMenu(Menu.buildFromTemplate(toTemplate(buildTrayMenu(input), this.run)));
  }

  destroy(): void {
    this.tray.destroy();
  }
}
