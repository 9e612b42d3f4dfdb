/**
 * Gemini CLI connected through the connect engine, in a temporary HOME: settings.json gets the
 * auth type and model, ~/.gemini/.env the key and base URL, the real CLI reads a file with a tool
 * call through each of the four upstream protocols, the requests are logged and billed under the
 * gemini-cli key, and disconnect puts both files back as they were (the .env, absent before, is
 * removed). Needs GEMINI_BIN; skipped without it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectTool, disconnectTool } from '../../gateway/connect/index.js';
import { assertLogged, assertRestored, makeHome, NOTES, runCli, startRig, UPSTREAM_PROTOCOLS, UPSTREAMS, type Rig } from '../helpers/connect-rig.js';

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
let secret: string;

before(async () => {
  if (!GEMINI) return;
  rig = await startRig((notes) => `tool=read_file,args=${encodeURIComponent(JSON.stringify({ file_path: notes }))}`);
  secret = await rig.gw.admin.key('gemini-cli');
});

after(async () => {
  if (GEMINI) await rig.close();
});

for (const upstream of UPSTREAM_PROTOCOLS) {
  const model = UPSTREAMS[upstream];
  test(`connect → Gemini CLI reads a file through a ${upstream} line → disconnect restores its files`, { skip: GEMINI ? false : 'set GEMINI_BIN to run', timeout: 180_000 }, async () => {
    const h = makeHome({ '.gemini/settings.json': SETTINGS, '.gemini/.env': null });
    try {
      const ctx = { home: h.home, env: {}, dataDir: rig.gw.dataDir };
      await connectTool(ctx, { tool: 'gemini-cli', wiring: { origin: rig.gw.url, secret, model }, keyName: 'gemini-cli' });
      // Key, base URL and model come from ~/.gemini; the variable only trusts the folder, as a user does once.
      const out = await runCli(GEMINI!, ['-p', 'What does notes.txt say?', '-y', '-o', 'json'], {
        cwd: rig.work,
        env: { PATH: process.env.PATH, HOME: h.home, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      });
      const result = JSON.parse(out.slice(out.indexOf('{'))) as { response: string; stats: { tools: { totalCalls: number; totalSuccess: number } } };
      assert.equal(result.stats.tools.totalCalls, 1, out.slice(-2000));
      assert.equal(result.stats.tools.totalSuccess, 1);
      assert.ok(result.response.includes(NOTES), result.response);
      await assertLogged(rig.gw, 'gemini-cli', model, 'gemini', upstream);
      await disconnectTool(ctx, 'gemini-cli');
      assertRestored(h);
    } finally {
      h.done();
    }
  });
}
