/** `tollgate open` and the serve banner: a login URL that works once in a browser's place. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO, spawnGateway, tempDataDir, waitFor, type ChildGateway } from '../helpers/gateway.js';

const run = promisify(execFile);
const dataDir = tempDataDir();
let gw: ChildGateway;

before(async () => {
  gw = await spawnGateway(dataDir);
});

after(() => {
  gw.child.kill('SIGTERM');
});

async function login(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

test('tollgate open --no-browser prints a one-time login URL for the running gateway', async () => {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'gateway/cli/main.ts'), 'open', '--no-browser'],
    {
      cwd: REPO,
      env: { ...process.env, TOLLGATE_DATA_DIR: dataDir },
    },
  );
  const url = stdout.trim();
  assert.match(url, new RegExp(`^${gw.url.replaceAll('.', '\\.')}/login\\?code=[A-Za-z0-9_-]{32}$`));
  const first = await login(url);
  assert.equal(first.status, 303);
  // The page's half of the console session rides in the redirect (admin/console.ts).
  assert.match(first.headers.get('location') ?? '', /^\/\?console=[A-Za-z0-9_-]{43}$/);
  assert.match(first.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
  const second = await login(url);
  assert.equal(second.headers.get('location'), '/?login=expired');
});

test('the serve banner prints a working login URL', async () => {
  // The banner follows the runtime file that spawnGateway waits for.
  await waitFor(() => gw.output().includes('/login?code='), 'the serve banner');
  const line = gw
    .output()
    .split('\n')
    .find((l) => l.includes('/login?code='))!;
  const url = line.slice(line.indexOf('http'));
  assert.match((await login(url)).headers.get('location') ?? '', /^\/\?console=[A-Za-z0-9_-]{43}$/);
});
