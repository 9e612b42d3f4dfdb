/**
 * Claude Code connected with `tollgate connect claude-code` (the CLI from dist/) in a temporary
 * HOME: its settings.json gets the env block, the real CLI reads a file with a tool call through
 * each of the four upstream protocols, the requests are logged and billed under the claude-code
 * key, and `tollgate disconnect` puts settings.json back byte for byte. Needs CLAUDE_BIN (see
 * .ci/run); skipped without it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertLogged,
  assertRestored,
  connectWithCli,
  disconnectWithCli,
  NOTES,
  runCli,
  startRig,
  UPSTREAM_PROTOCOLS,
  UPSTREAMS,
  userFiles,
  type Rig,
} from '../helpers/connect-rig.js';

const CLAUDE = process.env.CLAUDE_BIN;
const SETTINGS =
  '{\n  "permissions": { "allow": ["Read"] },\n  "env": { "DISABLE_AUTOUPDATER": "1" },\n  "includeCoAuthoredBy": false\n}\n';
let rig: Rig;

before(async () => {
  if (CLAUDE)
    rig = await startRig((notes) => `tool=Read,args=${encodeURIComponent(JSON.stringify({ file_path: notes }))}`);
});

after(async () => {
  if (CLAUDE) await rig.close();
});

for (const upstream of UPSTREAM_PROTOCOLS) {
  const model = UPSTREAMS[upstream];
  test(
    `tollgate connect → Claude Code reads a file through a ${upstream} line → tollgate disconnect restores settings.json`,
    { skip: CLAUDE ? false : 'set CLAUDE_BIN to run', timeout: 180_000 },
    async () => {
      const before = userFiles(rig, { '.claude/settings.json': SETTINGS });
      const key = await connectWithCli(rig, 'claude', ['--model', model, '--small-model', model]);
      const out = await runCli(
        CLAUDE!,
        ['-p', 'Read notes.txt and tell me what it says', '--output-format', 'json', '--dangerously-skip-permissions'],
        {
          cwd: rig.work,
          // Nothing about Tollgate here: base URL, key and model come from settings.json.
          env: {
            PATH: process.env.PATH,
            HOME: rig.home,
            IS_SANDBOX: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
        },
      );
      const result = JSON.parse(out) as { is_error: boolean; num_turns: number; result: string };
      assert.equal(result.is_error, false, out);
      assert.equal(result.num_turns, 2, `one tool call, then the answer: ${out.slice(0, 1000)}`);
      assert.ok(result.result.includes(NOTES), result.result);
      await assertLogged(rig.gw, key, model, 'anthropic', upstream);
      await disconnectWithCli(rig, 'claude-code', key);
      assertRestored(before);
    },
  );
}
