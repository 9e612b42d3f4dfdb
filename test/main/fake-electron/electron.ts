/**
 * A recording stand-in for the `electron` module, for the desktop smoke test
 * (test/main/smoke.test.ts): the built main bundle runs against it under Node. Windows, the tray
 * and menus are recorded for the test to inspect and click; `utilityProcess.fork` starts a real
 * Node child (with parent-port.mjs), so the gateway really runs.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';

type Handler = (...args: any[]) => any;

export interface Recorder {
  appPath: string;
  userData: string;
  home: string;
  paths: Record<string, string>;
  windows: FakeBrowserWindow[];
  trays: FakeTray[];
  sessions: Map<string, FakeSession>;
  forks: { modulePath: string; args: string[]; options: unknown; proc: FakeUtilityProcess }[];
  ipc: Map<string, Handler>;
  clipboard: string[];
  notifications: { title: string; body: string }[];
  opened: string[];
  quits: number;
  exits: number[];
  /** Resolves when the app has really quit (before-quit not held back). */
  quitted: Promise<void>;
}

let markQuitted: () => void = () => undefined;
export const recorder: Recorder = {
  appPath: '',
  userData: '',
  home: '',
  paths: {},
  windows: [],
  trays: [],
  sessions: new Map(),
  forks: [],
  ipc: new Map(),
  clipboard: [],
  notifications: [],
  opened: [],
  quits: 0,
  exits: [],
  quitted: new Promise<void>((r) => (markQuitted = r)),
};
(globalThis as { fakeElectron?: Recorder }).fakeElectron = recorder;

class FakeApp extends EventEmitter {
  isPackaged = false;
  commandLine = { hasSwitch: (name: string) => process.argv.includes(`--${name}`) };
  getVersion(): string {
    return '0.0.0-smoke';
  }
  private loginItem = false;
  getPath(name: string): string {
    if (recorder.paths[name]) return recorder.paths[name];
    if (name === 'userData') return recorder.userData;
    if (name === 'home') return recorder.home;
    throw new Error(`fake app.getPath: ${name} not set up`);
  }
  setPath(name: string, value: string): void {
    recorder.paths[name] = value;
  }
  getAppPath(): string {
    return recorder.appPath;
  }
  getLoginItemSettings() {
    return { openAtLogin: this.loginItem, wasOpenedAtLogin: false };
  }
  setLoginItemSettings(s: { openAtLogin: boolean }): void {
    this.loginItem = s.openAtLogin;
  }
  requestSingleInstanceLock(): boolean {
    return true;
  }
  whenReady(): Promise<void> {
    return new Promise((r) => setImmediate(r));
  }
  /** As Electron: `before-quit` may be prevented; otherwise the app quits. */
  quit(): void {
    recorder.quits++;
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (prevented) return;
    for (const w of recorder.windows) w.emit('close', { preventDefault: () => undefined });
    this.emit('will-quit', { preventDefault: () => undefined });
    markQuitted();
  }
  exit(code = 0): void {
    recorder.exits.push(code);
    markQuitted();
  }
}
export const app = new FakeApp();

/** `shutdown` on Linux and macOS. */
export const powerMonitor = new EventEmitter();

export const clipboard = { writeText: (t: string) => void recorder.clipboard.push(t) };
/** One 1920×1080 display with a 40 px taskbar. */
export const screen = {
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1040 } }],
};
export const shell = { openExternal: async (url: string) => void recorder.opened.push(url) };
export const ipcMain = { handle: (channel: string, fn: Handler) => void recorder.ipc.set(channel, fn) };

export class Notification {
  static isSupported(): boolean {
    return true;
  }
  constructor(private readonly opts: { title: string; body: string }) {}
  show(): void {
    recorder.notifications.push(this.opts);
  }
}

export class FakeSession extends EventEmitter {
  permissionRequest?: Handler;
  permissionCheck?: Handler;
  beforeRequest?: Handler;
  headersReceived?: Handler;
  setPermissionRequestHandler(fn: Handler) {
    this.permissionRequest = fn;
  }
  setPermissionCheckHandler(fn: Handler) {
    this.permissionCheck = fn;
  }
  webRequest = {
    onBeforeRequest: (fn: Handler) => void (this.beforeRequest = fn),
    onHeadersReceived: (fn: Handler) => void (this.headersReceived = fn),
  };
}
export const session = {
  fromPartition(name: string): FakeSession {
    if (!recorder.sessions.has(name)) recorder.sessions.set(name, new FakeSession());
    return recorder.sessions.get(name)!;
  },
};

let nextId = 1;
class FakeWebContents extends EventEmitter {
  id = nextId++;
  mainFrame = { url: '' };
  windowOpenHandler?: Handler;
  setWindowOpenHandler(fn: Handler) {
    this.windowOpenHandler = fn;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  webContents = new FakeWebContents();
  loaded: string[] = [];
  visible = false;
  destroyed = false;
  constructor(readonly options: any) {
    super();
    recorder.windows.push(this);
  }
  async loadURL(url: string): Promise<void> {
    this.loaded.push(url);
    this.webContents.mainFrame.url = url;
    this.emit('ready-to-show');
  }
  show() {
    this.visible = true;
  }
  hide() {
    this.visible = false;
  }
  focus() {}
  maximized = false;
  maximize() {
    this.maximized = true;
  }
  isMaximized() {
    return this.maximized;
  }
  getNormalBounds() {
    return { x: this.options.x ?? 80, y: this.options.y ?? 60, width: this.options.width, height: this.options.height };
  }
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    this.destroyed = true;
    this.emit('closed');
  }
}
export { FakeBrowserWindow as BrowserWindow };

export const nativeImage = {
  createFromPath: (path: string) => ({
    path,
    template: false,
    setTemplateImage(this: { template: boolean }, v: boolean) {
      this.template = v;
    },
  }),
};

export const Menu = {
  buildFromTemplate: (template: any[]) => ({ template }),
  setApplicationMenu: () => undefined,
};

export class FakeTray extends EventEmitter {
  image: any;
  tooltip = '';
  menu: { template: any[] } | null = null;
  menus = 0;
  constructor(image: unknown) {
    super();
    this.image = image;
    recorder.trays.push(this);
  }
  setImage(image: unknown) {
    this.image = image;
  }
  setToolTip(t: string) {
    this.tooltip = t;
  }
  setContextMenu(m: { template: any[] }) {
    this.menu = m;
    this.menus++;
  }
  destroy() {}
}
export { FakeTray as Tray };

export class FakeUtilityProcess extends EventEmitter {
  readonly child: ChildProcess;
  constructor(modulePath: string, args: string[], options: { stdio?: unknown }) {
    super();
    const shim = fileURLToPath(new URL('./parent-port.mjs', import.meta.url));
    this.child = fork(modulePath, args, {
      execArgv: ['--import', shim],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: process.env,
    });
    void options;
    this.child.on('message', (m) => this.emit('message', m));
    this.child.on('exit', (code) => this.emit('exit', code ?? 1));
  }
  get pid() {
    return this.child.pid;
  }
  get stdout() {
    return this.child.stdout;
  }
  get stderr() {
    return this.child.stderr;
  }
  postMessage(m: unknown) {
    this.child.send(m as never);
  }
  kill() {
    return this.child.kill('SIGKILL');
  }
}
export const utilityProcess = {
  fork(modulePath: string, args: string[] = [], options: { stdio?: unknown } = {}) {
    const proc = new FakeUtilityProcess(modulePath, args, options);
    recorder.forks.push({ modulePath, args, options, proc });
    return proc;
  },
};

export default {
  app,
  clipboard,
  shell,
  ipcMain,
  Notification,
  session,
  BrowserWindow: FakeBrowserWindow,
  nativeImage,
  Menu,
  Tray: FakeTray,
  utilityProcess,
  powerMonitor,
  screen,
};
