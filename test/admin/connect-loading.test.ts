/**
 * `tollgate serve` does not hold the connect routes' file editors (TOML, JSONC, dotenv, the diff)
 * until a connect route is called: a gateway that only serves models never loads them. Seen from
 * inside a real `tollgate serve` process, through a module hook that writes down every module it
 * loads.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { spawnGateway, tempDataDir, type ChildGateway } from '../helpers/gateway.js';

/** Where each of the editors' modules lives, as part of its URL. */
const EDITORS = [
  '/node_modules/@decimalturn/toml-patch/',
  '/node_modules/jsonc-parser/',
  '/node_modules/dotenv/',
  '/node_modules/diff/',
  '/gateway/connect/formats/',
  '/gateway/connect/plan.',
];

const dir = mkdtempSync(join(tmpdir(), 'tollgate-module-log-'));
const log = join(dir, 'loaded.txt');
const home = join(dir, 'home');
let gw: ChildGateway;

before(async () => {
  // The hook runs on the loader's own thread: it appends each URL to the log as it loads.
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) {
  appendFileSync(file, url + '\\n');
  return next(url, context);
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)}, { data: { file: ${JSON.stringify(log)} } });
`,
  );
  writeFileSync(log, '');
  // The connect routes read the tools' files under HOME: an empty one, not the tester's.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home };
  for (const v of ['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME']) delete env[v];
  gw = await spawnGateway(tempDataDir(), env, ['--import', pathToFileURL(join(dir, 'register.mjs')).href]);
});

after(() => {
  gw.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

function loaded(): string[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

function editorsIn(urls: string[]): string[] {
  return EDITORS.filter((part) => urls.some((u) => u.includes(part)));
}

test('tollgate serve starts without loading the connect editors, and loads them for the first connect route', async () => {
  const atStart = loaded();
  // The hook saw the server itself: an empty list would prove nothing.
  assert.ok(
    atStart.some((u) => u.endsWith('/gateway/serve.ts')),
    `the module log has no gateway/serve.ts: ${atStart.length} entries`,
  );
  assert.deepEqual(editorsIn(atStart), [], 'loaded at start-up');

  // A model request and the other admin routes leave them alone too.
  assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: 'Bearer sk-none' } })).status, 401);
  await gw.admin.call('getStatus');
  assert.deepEqual(editorsIn(loaded()), [], 'loaded by a model request or the status route');

  const view = await gw.admin.call('connectStatus');
  assert.ok(view.tools.length > 0, 'the connect status lists the tools');
  assert.ok(
    view.tools.every((t) => !t.connected && t.files.every((f) => f.state === 'missing')),
    JSON.stringify(view.tools.map((t) => [t.tool, t.connected, t.files])),
  );
  assert.deepEqual(editorsIn(loaded()), EDITORS, 'loaded by the connect status route');
});
