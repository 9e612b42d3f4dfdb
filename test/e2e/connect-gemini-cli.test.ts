/**
 * Gemini CLI connected with `tollgate connect gemini-cli` (the CLI from dist/) in a temporary
 * HOME: settings.json gets the auth type and model, ~/.gemini/.env the key and base URL, the real
 * CLI reads a file with a tool call through each of the four upstream protocols, the requests are
 * logged and billed under the gemini-cli key, and `tollgate disconnect` puts both files back as
 * they were (the .env, absent before, is removed). Needs GEMINI_BIN; skipped without it.
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

const GEMINI = process.env.GEMINI_BIN;
// Current key names only: Gemini CLI rewrites a settings.json that uses deprecated ones
// (disableAutoUpdate becomes enableAutoUpdate), and that rewrite is not Tollgate's to undo.
const SETTINGS = `{
  // quiet, offline
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": { "enableAutoUpdate": false }
}
`;
let rig: Rig;

before(async () => {
  if (GEMINI)
    rig = await startRig((notes) => `tool=read_file,args=${encodeURIComponent(JSON.stringify({ file_path: notes }))}`);
});

after(async () => {
  if (GEMINI) await rig.close();
});

for (const upstream of UPSTREAM_PROTOCOLS) {
  const model = UPSTREAMS[upstream];
  test(
    `tollgate connect → Gemini CLI reads a file through a ${upstream} line → tollgate disconnect restores its files`,
    { skip: GEMINI ? false : 'set GEMINI_BIN to run', timeout: 180_000 },
    async () => {
      const before = userFiles(rig, { '.gemini/settings.json': SETTINGS, '.gemini/.env': null });
      const key = await connectWithCli(rig, 'gemini', ['--model', model]);
      // Key, base URL and model come from ~/.gemini; the variable only trusts the folder, as a user does once.
      const out = await runCli(GEMINI!, ['-p', 'What does notes.txt say?', '-y', '-o', 'json'], {
        cwd: rig.work,
        env: { PATH: process.env.PATH, HOME: rig.home, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      });
      const result = JSON.parse(out.slice(out.indexOf('{'))) as {
        response: string;
        stats: { tools: { totalCalls: number; totalSuccess: number } };
      };
      assert.equal(result.stats.tools.totalCalls, 1, out.slice(-2000));
      assert.equal(result.stats.tools.totalSuccess, 1);
      assert.ok(result.response.includes(NOTES), result.response);
      await assertLogged(rig.gw, key, model, 'gemini', upstream);
      await disconnectWithCli(rig, 'gemini-cli', key);
      assertRestored(before);
    },
  );
}
