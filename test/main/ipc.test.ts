import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANNELS } from '../../main/bridge.js';
import { registerIpc, type IpcDeps } from '../../main/ipc.js';

const ORIGIN = 'http://127.0.0.1:4141';

function setup() {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const calls: string[] = [];
  let login = false;
  const deps: IpcDeps = {
    ipcMain: {
      handle: (channel: string, fn: (event: never, ...args: unknown[]) => unknown) =>
        void handlers.set(channel, fn as never),
    } as IpcDeps['ipcMain'],
    console: () => ({ webContentsId: 3, origin: ORIGIN }),
    openExternal: async (url) => void calls.push(`open ${url}`),
    copyText: (text) => void calls.push(`copy ${text}`),
    getLaunchAtLogin: () => login,
    setLaunchAtLogin: (on) => (login = on),
    notify: (t, b) => void calls.push(`notify ${t}: ${b}`),
    restartGateway: async () => (calls.push('restart'), { restarting: true }),
    log: () => undefined,
  };
  registerIpc(deps);
  const mainFrame = { url: `${ORIGIN}/wallet` };
  const from = (frame: { url: string } | null, id = 3) => ({ sender: { id, mainFrame }, senderFrame: frame });
  return { handlers, calls, mainFrame, from };
}

test('exactly the allow-listed channels are handled', () => {
  const { handlers } = setup();
  assert.deepEqual([...handlers.keys()].sort(), [...CHANNELS].sort());
});

test('the console top frame may call; arguments are checked', async () => {
  const { handlers, calls, mainFrame, from } = setup();
  const ok = from(mainFrame);
  await handlers.get('tollgate:open-external')!(ok, 'https://docs.anthropic.com/');
  await handlers.get('tollgate:copy-text')!(ok, 'sk-abc');
  assert.equal(await handlers.get('tollgate:login-item-set')!(ok, true), true);
  assert.equal(await handlers.get('tollgate:login-item-get')!(ok), true);
  await handlers.get('tollgate:notify')!(ok, 'Hi', 'there');
  assert.deepEqual(await handlers.get('tollgate:restart-gateway')!(ok), { restarting: true });
  assert.deepEqual(calls, ['open https://docs.anthropic.com/', 'copy sk-abc', 'notify Hi: there', 'restart']);
  await assert.rejects(async () => handlers.get('tollgate:open-external')!(ok, 'file:///etc/passwd'), /only https/);
  await assert.rejects(async () => handlers.get('tollgate:login-item-set')!(ok, 'yes'), /true or false/);
  await assert.rejects(async () => handlers.get('tollgate:copy-text')!(ok, 'x'.repeat(100_001)), /at most/);
  await assert.rejects(async () => handlers.get('tollgate:notify')!(ok, 5, 'b'), /title/);
});

test('IPC from a subframe, another window, another origin or a gone frame is refused', async () => {
  const { handlers, calls, from } = setup();
  const cases = [
    from({ url: `${ORIGIN}/frame` }),
    from(null),
    from({ url: 'https://evil.example/' }),
    { ...from(null, 9), senderFrame: { url: `${ORIGIN}/` } },
  ];
  for (const ev of cases) {
    for (const channel of CHANNELS)
      await assert.rejects(
        async () => handlers.get(channel)!(ev, 'https://example.com/'),
        /answered only for the Tollgate console/,
      );
  }
  assert.deepEqual(calls, []);
});
