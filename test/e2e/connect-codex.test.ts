/**
 * Codex CLI connected through the connect engine, in a temporary HOME: its config.toml gets the
 * tollgate provider (key in the file, so no export is needed), the real CLI runs a shell command
 * through each of the four upstream protocols, the requests are logged and billed under the
 * codex key, and disconnect puts config.toml back byte for byte. Needs CODEX_BIN; skipped without it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connectTool, disconnectTool } from '../../gateway/connect/index.js';
import { assertLogged, assertRestored, makeHome, NOTES, runCli, startRig, UPSTREAM_PROTOCOLS, UPSTREAMS, type Rig } from '../helpers/connect-rig.js';

const CODEX = process.env.CODEX_BIN;
/** The user's own config before connect: comments, a setting, tables Tollgate knows nothing about. */
const CONFIG = `# my Codex settings
model = "o3"  # the one I use at work
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.work]
name = "Work proxy"
base_url = "https://llm.work.example/v1"
env_key = "WORK_KEY"
`;
let rig: Rig;
let secret: string;

before(async () => {
  if (!CODEX) return;
  rig = await startRig(() => `tool=exec_command,args=${encodeURIComponent(JSON.stringify({ cmd: 'cat notes.txt' }))}`);
  secret = await rig.gw.admin.key('codex');
});

after(async () => {
  if (CODEX) await rig.close();
});

for (const upstream of UPSTREAM_PROTOCOLS) {
  const model = UPSTREAMS[upstream];
  test(`connect → Codex runs a command through a ${upstream} line → disconnect restores config.toml`, { skip: CODEX ? false : 'set CODEX_BIN to run', timeout: 180_000 }, async () => {
    const h = makeHome({ '.codex/config.toml': CONFIG });
    try {
      const ctx = { home: h.home, env: {}, dataDir: rig.gw.dataDir };
      await connectTool(ctx, { tool: 'codex', wiring: { origin: rig.gw.url, secret, model }, keyName: 'codex' });
      // A fresh shell: no key, no Codex variables; the provider and its key come from config.toml.
      const out = await runCli(CODEX!, ['exec', '--json', '--skip-git-repo-check', 'What does notes.txt say?'], { cwd: rig.work, env: { PATH: process.env.PATH, HOME: h.home } });
      const events = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { type: string; item?: { type: string; aggregated_output?: string; text?: string } });
      const command = events.find((e) => e.type === 'item.completed' && e.item?.type === 'command_execution');
      assert.ok(command?.item?.aggregated_output?.includes(NOTES), out.slice(-2000));
      const answer = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').at(-1);
      assert.ok(answer?.item?.text?.includes(NOTES), out.slice(-2000));
      await assertLogged(rig.gw, 'codex', model, 'openai-responses', upstream);
      await disconnectTool(ctx, 'codex');
      assertRestored(h);
      assert.ok(h.before.has(join(h.home, '.codex/config.toml')));
    } finally {
      h.done();
    }
  });
}
