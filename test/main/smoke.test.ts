/**
 * The desktop smoke test: the BUILT main process (dist/main/index.js, built by `npm test`'s
 * pretest) runs under Node against a recording stand-in for `electron` (fake-electron/), with the
 * real gateway in a child process and the official `openai` SDK as the client. It shows the
 * wiring that no Electron binary can show on this machine: the gateway starts and answers, the
 * window gets the secure preferences, the tray lists the real keys and toggles them, pauses and
 * resumes the gateway, a dead gateway is restarted, and quitting lets a request in flight finish.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { readAdminToken } from '../../gateway/admin/token.js';
import { readRuntime } from '../../gateway/runtime.js';
import { Admin, REPO, startGateway, tempDataDir, waitFor } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import type { Recorder } from './fake-electron/electron.js';

const BUNDLE = join(REPO, 'dist', 'main', 'index.js');
const SLOW = 20_000;

type Item = {
  label?: string;
  type?: string;
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
  submenu?: Item[];
};

let rec: Recorder;
let dir: string;
let mock: MockUpstream;
let url: string;
let admin: Admin;
let laptop: string;
let ci: string;
let realHome: string | undefined;

function menu(): Item[] {
  return (rec.trays[0]?.menu?.template ?? []) as Item[];
}

function item(label: string, items = menu()): Item | undefined {
  for (const i of items) {
    if (i.label === label || i.label?.startsWith(label + ' ')) return i;
    const sub = i.submenu && item(label, i.submenu);
    if (sub) return sub;
  }
  return undefined;
}

function firstLabel(): string {
  return menu()[0]?.label ?? '';
}

function client(key: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
}

async function attachAdmin(): Promise<void> {
  url = readRuntime(dir)!.url;
  admin = new Admin(url, readAdminToken(dir)!);
}

describe('desktop smoke: the built main bundle with a stand-in electron', () => {
  before(async () => {
    assert.ok(existsSync(BUNDLE), `${BUNDLE} is missing: run "npm run build" (npm test does it in pretest)`);
    dir = tempDataDir();
    // Port 0: the test must not depend on 4141 being free. Written where older versions of the app
    // kept it, desktop.json, so that the first start also carries it into the gateway's settings.
    writeFileSync(join(dir, 'desktop.json'), JSON.stringify({ port: 0 }));
    process.env.TOLLGATE_DATA_DIR = dir;
    process.env.XDG_CONFIG_HOME = join(dir, 'xdg');
    // The gateway process reads (and a connect would edit) coding tools' files under HOME: a temporary one.
    realHome = process.env.HOME;
    process.env.HOME = join(dir, 'home');
    mkdirSync(process.env.HOME);
    mock = await startMockUpstream();
    register('./fake-electron/hook.mjs', import.meta.url);
    rec = ((await import('./fake-electron/electron.js')) as { recorder: Recorder }).recorder;
    rec.appPath = REPO;
    rec.userData = join(dir, 'user-data-unused');
    rec.home = dir;
    await import(pathToFileURL(BUNDLE).href);
  });

  after(async () => {
    process.env.HOME = realHome;
    for (const f of rec?.forks ?? []) f.proc.child.kill('SIGKILL');
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the gateway in a utility process; it answers on its port for this data dir', async () => {
    await waitFor(() => firstLabel().startsWith('Tollgate on port'), 'the tray to show a running gateway', SLOW);
    assert.equal(rec.forks.length, 1);
    assert.equal(rec.forks[0]!.modulePath, join(REPO, 'dist', 'gateway', 'desktop-child.js'));
    assert.deepEqual(rec.forks[0]!.args, ['--data-dir', dir, '--carry-port', '0']);
    await attachAdmin();
    // The port is the gateway's setting now, read by `tollgate serve` too; desktop.json keeps only the app's own.
    assert.equal(
      (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { settings: { port: number } }).settings.port,
      0,
    );
    await waitFor(
      () => !('port' in JSON.parse(readFileSync(join(dir, 'desktop.json'), 'utf8'))),
      'desktop.json trimmed',
    );
    assert.equal(firstLabel(), `Tollgate on port ${new URL(url).port}`);
    assert.deepEqual(await (await fetch(`${url}/`)).json(), { name: 'Tollgate', ok: true });
    const status = await admin.client.call('getStatus');
    assert.equal(status.dataDir, dir);
    assert.equal(rec.paths.sessionData, join(dir, 'electron'), "Chromium's storage stays out of the gateway's files");
  });

  it('opens the console window with the secure preferences and guards it', async () => {
    await waitFor(() => rec.windows.length === 1 && rec.windows[0]!.loaded.length === 1, 'the console window', SLOW);
    const win = rec.windows[0]!;
    const prefs = win.options.webPreferences;
    assert.equal(prefs.contextIsolation, true);
    assert.equal(prefs.sandbox, true);
    assert.equal(prefs.nodeIntegration, false);
    assert.equal(prefs.webviewTag, false);
    assert.ok(existsSync(prefs.preload), 'the preload is built');
    assert.ok(win.loaded[0]!.startsWith(`${url}/login?code=`), win.loaded[0]);
    assert.equal(win.visible, true);

    const ses = rec.sessions.get(prefs.partition)!;
    let granted: boolean | undefined;
    ses.permissionRequest!({}, 'media', (ok: boolean) => (granted = ok), {
      requestingUrl: `${url}/`,
      isMainFrame: true,
    });
    assert.equal(granted, false, 'permission requests are denied');
    assert.equal(ses.permissionCheck!(), false);
    ses.permissionRequest!({}, 'clipboard-sanitized-write', (ok: boolean) => (granted = ok), {
      requestingUrl: `${url}/#/keys`,
      isMainFrame: true,
    });
    assert.equal(granted, true, "but the console's own top frame may write the clipboard");
    assert.equal(
      ses.permissionCheck!({}, 'clipboard-sanitized-write', url, { requestingUrl: `${url}/`, isMainFrame: true }),
      true,
    );
    assert.equal(
      ses.permissionCheck!({}, 'clipboard-read', url, { requestingUrl: `${url}/`, isMainFrame: true }),
      false,
    );
    const cancel = (u: string) => {
      let out: { cancel: boolean } | undefined;
      ses.beforeRequest!({ url: u }, (r: { cancel: boolean }) => (out = r));
      return out!.cancel;
    };
    assert.equal(cancel(`${url}/assets/app.js`), false);
    assert.equal(cancel('https://cdn.example.com/app.js'), true, 'no remote content');
    let headers: Record<string, string[]> = {};
    ses.headersReceived!(
      { url: `${url}/`, responseHeaders: {} },
      (r: { responseHeaders: Record<string, string[]> }) => (headers = r.responseHeaders),
    );
    assert.match(headers['Content-Security-Policy']![0]!, /script-src 'self'/);

    let prevented = false;
    win.webContents.emit('will-navigate', { preventDefault: () => (prevented = true) }, 'http://evil.example/');
    assert.equal(prevented, true, 'navigation away is denied');
    assert.deepEqual(win.webContents.windowOpenHandler!({ url: 'https://docs.anthropic.com/' }), { action: 'deny' });
    assert.deepEqual(rec.opened, ['https://docs.anthropic.com/'], 'an https link opens in the browser instead');

    const ipcEvent = (frameUrl: string, main = true) => ({
      sender: win.webContents,
      senderFrame: main ? win.webContents.mainFrame : { url: frameUrl },
    });
    await rec.ipc.get('tollgate:copy-text')!(ipcEvent(win.webContents.mainFrame.url), 'copied');
    assert.deepEqual(rec.clipboard, ['copied']);
    assert.throws(
      () => rec.ipc.get('tollgate:copy-text')!(ipcEvent(`${url}/x`, false), 'x'),
      /only for the Tollgate console/,
    );

    let closePrevented = false;
    win.emit('close', { preventDefault: () => (closePrevented = true) });
    assert.equal(closePrevented, true, 'closing keeps Tollgate in the tray');
    assert.equal(win.visible, false);
    // Where it was is the app's own, kept in desktop.json for the next window.
    await waitFor(
      () =>
        (JSON.parse(readFileSync(join(dir, 'desktop.json'), 'utf8')) as { window?: { width: number } }).window
          ?.width === 1280,
      "the window's place kept",
    );
  });

  it('builds the tray from the real key list; unticking a key makes its next request 401', async () => {
    await admin.topup(5);
    await admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
    await admin.line({ name: 'slow', baseUrl: scenarioBase(mock, 'chunk-delay=100,words=15'), models: ['gpt-4o'] });
    laptop = await admin.key('laptop');
    ci = await admin.key('ci');
    await waitFor(
      () => item('laptop')?.checked === true && item('ci')?.checked === true,
      'both keys in the tray',
      SLOW,
    );
    assert.equal(item('laptop')!.type, 'checkbox');

    const ok = await client(laptop).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.match(ok.choices[0]!.message.content!, /mock reply/);

    item('laptop')!.click!();
    await waitFor(() => item('laptop')?.checked === false, 'the key unticked', SLOW);
    await assert.rejects(
      client(laptop).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.AuthenticationError, String(err));
        assert.equal(err.status, 401);
        return true;
      },
    );
    const other = await client(ci).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'still fine' }],
    });
    assert.ok(other.choices[0]!.message.content);
    await waitFor(
      () => /^Today \$0\.\d\d · Balance \$\d\.\d\d$/.test(menu()[1]?.label ?? ''),
      "today's spend and balance in the tray",
      SLOW,
    );

    item('laptop')!.click!();
    await waitFor(() => item('laptop')?.checked === true, 'the key ticked again', SLOW);
  });

  it('pauses from the tray: a model request gets 503; resuming from the tray serves it again', async () => {
    const pause = item('Pause gateway');
    assert.equal(pause?.enabled, true);
    pause!.click!();
    await waitFor(
      () => item('Resume gateway') !== undefined && firstLabel().endsWith('(paused)'),
      'the tray to show the pause',
      SLOW,
    );
    assert.ok(rec.trays[0]!.image.path.endsWith('paused.png'), rec.trays[0]!.image.path);
    assert.equal((await admin.client.call('getStatus')).paused, true);
    await assert.rejects(
      client(laptop).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'while paused' }],
      }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.APIError, String(err));
        assert.equal(err.status, 503);
        assert.match(err.message, /Tollgate is paused/);
        return true;
      },
    );

    item('Resume gateway')!.click!();
    await waitFor(
      () => item('Pause gateway') !== undefined && !firstLabel().includes('(paused)'),
      'the tray to show the gateway running',
      SLOW,
    );
    const ok = await client(laptop).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'resumed' }],
    });
    assert.ok(ok.choices[0]!.message.content);

    // A pause made elsewhere (the CLI, the console) reaches the tray through the event stream.
    await admin.client.call('pauseGateway');
    await waitFor(() => item('Resume gateway') !== undefined, 'the tray to follow a pause made elsewhere', SLOW);
    await admin.client.call('resumeGateway');
    await waitFor(() => item('Pause gateway') !== undefined, 'and the resume', SLOW);
  });

  it('lists the connected coding tools from the gateway; clicking one opens the console on its Connect page', async () => {
    await waitFor(() => item('Connect a coding tool…') !== undefined, 'the tools section', SLOW);
    await admin.client.call('connectTool', { params: { tool: 'gemini-cli' }, body: { model: 'gpt-4o-mini' } });
    await waitFor(() => item('Gemini CLI (key gemini-cli)') !== undefined, 'the connected tool in the tray', SLOW);
    assert.ok(
      existsSync(join(dir, 'home', '.gemini', 'settings.json')),
      "the connect wrote the temporary HOME's files",
    );
    const win = rec.windows[0]!;
    const before = win.loaded.length;
    item('Gemini CLI (key gemini-cli)')!.click!();
    await waitFor(() => win.loaded.length === before + 1, 'the console to load the Connect page', SLOW);
    assert.match(win.loaded.at(-1)!, new RegExp(`^${url}/login\\?code=[^#]+#/connect$`));
    assert.equal(win.visible, true);
    await admin.client.call('disconnectTool', { params: { tool: 'gemini-cli' } });
    await waitFor(
      () => item('Gemini CLI (key gemini-cli)') === undefined,
      'the tool gone from the tray after disconnect',
      SLOW,
    );
  });

  it('restarts a gateway that dies, and shows it in the tray', async () => {
    const images: string[] = [];
    const seen: string[] = [];
    const watch = setInterval(() => {
      images.push(rec.trays[0]!.image.path);
      seen.push(firstLabel());
    }, 10);
    try {
      rec.forks[0]!.proc.child.kill('SIGKILL');
      await waitFor(
        () => rec.forks.length === 2 && firstLabel().startsWith('Tollgate on port'),
        'the restarted gateway',
        SLOW,
      );
    } finally {
      clearInterval(watch);
    }
    assert.ok(
      seen.some((l) => l.startsWith('Gateway stopped')),
      `the tray said the gateway stopped: ${[...new Set(seen)].join(' | ')}`,
    );
    assert.ok(
      images.some((p) => p.endsWith('error.png')),
      'with the error icon',
    );
    await attachAdmin();
    await waitFor(() => item('laptop')?.checked === true, 'keys listed again', SLOW);
    const again = await client(laptop).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'after the restart' }],
    });
    assert.ok(again.choices[0]!.message.content);
  });

  it("restarts its gateway on the console's word, on the port the settings name now, and reopens the console there", async () => {
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise((r) => free.close(r));
    await admin.client.call('updateSettings', { body: { port } });
    const win = rec.windows.at(-1)!;
    const answer = await rec.ipc.get('tollgate:restart-gateway')!({
      sender: win.webContents,
      senderFrame: win.webContents.mainFrame,
    });
    assert.deepEqual(answer, { restarting: true });
    await waitFor(() => rec.forks.length === 3 && firstLabel() === `Tollgate on port ${port}`, 'the new port', SLOW);
    await attachAdmin();
    assert.equal(new URL(url).port, String(port));
    await waitFor(
      () => rec.windows.at(-1)!.loaded.some((u) => u.startsWith(`${url}/login?code=`)),
      'the console reopened',
    );
    assert.match(rec.windows.at(-1)!.loaded.at(-1)!, /#\/settings$/);
    const served = await client(laptop).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'on the new port' }],
    });
    assert.ok(served.choices[0]!.message.content);
  });

  it('quits only after a request in flight has finished and been logged', async () => {
    const child = rec.forks.at(-1)!.proc.child;
    let streamEnded = false;
    let text = '';
    let finish: string | null = null;
    const consumed = (async () => {
      const stream = await client(laptop).chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'a slow one' }],
      });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      streamEnded = true;
    })();
    await waitFor(() => text.length > 0, 'the stream to start', SLOW);
    let endedBeforeQuit: boolean | undefined;
    void rec.quitted.then(() => (endedBeforeQuit = streamEnded));
    const { app } = (await import('./fake-electron/electron.js')) as { app: { quit(): void } };
    app.quit();
    await consumed;
    await rec.quitted;
    assert.equal(endedBeforeQuit, true, 'the app quit after the stream ended');
    assert.equal(finish, 'stop');
    assert.equal(text.trim().split(/\s+/).length >= 10, true, `the whole reply arrived: ${text}`);
    await waitFor(() => child.exitCode !== null, 'the gateway process to exit');
    assert.equal(child.exitCode, 0, 'the gateway closed cleanly');
    assert.equal(readRuntime(dir), undefined, 'and removed its runtime file');

    const reopened = await startGateway(dir);
    try {
      const rows = await reopened.admin.logs({ model: 'gpt-4o' });
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 200);
      assert.ok(rows[0]!.costMicro > 0, 'the request was billed');
      assert.equal((await reopened.admin.doctor()).ok, true);
    } finally {
      await reopened.running.close();
    }
  });

  it('kept an app log of main and the gateway process, with no secret in it', () => {
    const text = readFileSync(join(dir, 'logs', 'main.log'), 'utf8');
    for (const line of ['tray created', 'gateway running at', 'gateway stopped', 'refused IPC', 'quitting'])
      assert.ok(text.includes(line), `the log says "${line}"`);
    const codes = rec.windows.flatMap((w) => w.loaded).map((u) => new URL(u).searchParams.get('code')!);
    const secrets: [string, string][] = [
      ['the key laptop', laptop.slice(3)],
      ['the key ci', ci.slice(3)],
      ['the admin token', readAdminToken(dir)!.slice(4)],
      ...codes.map((c, i): [string, string] => [`login code ${i}`, c]),
    ];
    for (const [what, secret] of secrets) assert.ok(!text.includes(secret), `${what} is in the app log`);
  });
});
