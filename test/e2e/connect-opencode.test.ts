/**
 * OpenCode connected with `tollgate connect opencode` (the CLI from dist/) in a temporary HOME: its
 * global opencode.json gets the tollgate provider, the real CLI reads a file with its `read` tool
 * through each of the four upstream protocols, the requests are logged and billed under the
 * opencode key, and `tollgate disconnect` puts opencode.json back byte for byte. Then `tollgate env
 * opencode` alone, with no config file, points a shell's OpenCode at Tollgate. Needs OPENCODE_BIN
 * (npm install --prefix /tmp/tools opencode-ai@1.18.33); skipped without it.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  assertLogged,
  assertRestored,
  connectWithCli,
  disconnectWithCli,
  NOTES,
  runCli,
  startRig,
  tollgate,
  UPSTREAM_PROTOCOLS,
  UPSTREAMS,
  userFiles,
  type Rig,
} from '../helpers/connect-rig.js';

const OPENCODE = process.env.OPENCODE_BIN;
/**
 * The user's own config: a comment, settings and a provider of theirs, and no `$schema`, which
 * OpenCode writes into a config file that lacks it (connect sets it, so the file stays as written).
 */
const CONFIG = `{
  // no sharing, no updates
  "share": "disabled",
  "autoupdate": false,
  "provider": {
    "ollama": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "http://127.0.0.1:11434/v1" } }
  }
}
`;
/** Quiet and offline, as a user may set them; nothing here points at Tollgate. */
const QUIET = { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' };
let rig: Rig;

before(async () => {
  if (OPENCODE)
    rig = await startRig((notes) => `tool=read,args=${encodeURIComponent(JSON.stringify({ filePath: notes }))}`);
});

after(async () => {
  if (OPENCODE) await rig.close();
});

interface Event {
  type: string;
  part?: { type: string; tool?: string; text?: string; state?: { status: string; output?: string } };
}

/** `opencode run --format json` prints one JSON event per line: the tool call, then the answer. */
function assertReadAndAnswered(out: string): void {
  const events = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Event);
  const read = events.find((e) => e.type === 'tool_use' && e.part?.tool === 'read');
  assert.equal(read?.part?.state?.status, 'completed', out.slice(-2000));
  assert.ok(read?.part?.state?.output?.includes(NOTES), out.slice(-2000));
  const answer = events.filter((e) => e.type === 'text').at(-1);
  assert.ok(answer?.part?.text?.includes(NOTES), out.slice(-2000));
}

for (const upstream of UPSTREAM_PROTOCOLS) {
  const model = UPSTREAMS[upstream];
  test(
    `tollgate connect → OpenCode reads a file through a ${upstream} line → tollgate disconnect restores opencode.json`,
    { skip: OPENCODE ? false : 'set OPENCODE_BIN to run', timeout: 240_000 },
    async () => {
      const before = userFiles(rig, { '.config/opencode/opencode.json': CONFIG });
      const key = await connectWithCli(rig, 'opencode', ['--model', model, '--small-model', model]);
      // A fresh shell: the provider, its key and the model come from opencode.json.
      const out = await runCli(OPENCODE!, ['run', '--format', 'json', 'What does notes.txt say?'], {
        cwd: rig.work,
        env: { PATH: process.env.PATH, HOME: rig.home, ...QUIET },
      });
      assertReadAndAnswered(out);
      await assertLogged(rig.gw, key, model, 'openai-chat', upstream);
      await disconnectWithCli(rig, 'opencode', key);
      assertRestored(before);
    },
  );
}

test(
  'tollgate env opencode --new-key points a shell’s OpenCode at Tollgate with no config file',
  { skip: OPENCODE ? false : 'set OPENCODE_BIN to run', timeout: 240_000 },
  async () => {
    userFiles(rig, {});
    const model = UPSTREAMS['openai-chat'];
    const exports = await tollgate(rig, ['env', 'opencode', '--new-key', '--model', model]);
    assert.match(exports, /^export TOLLGATE_API_KEY=sk-\w+\nexport OPENCODE_CONFIG_CONTENT='\{/);
    const out = await runCli(
      'bash',
      ['-c', `${exports}\nexec "$OPENCODE" run --format json 'What does notes.txt say?'`],
      { cwd: rig.work, env: { PATH: process.env.PATH, HOME: rig.home, OPENCODE: OPENCODE!, ...QUIET } },
    );
    assertReadAndAnswered(out);
    const key = (await rig.gw.admin.client.call('listKeys')).keys.find((k) => k.name === 'opencode')!;
    await assertLogged(rig.gw, key, model, 'openai-chat', 'openai-chat');
    assert.equal(existsSync(join(rig.home, '.config/opencode/opencode.json')), false, 'no config file was written');
  },
);
