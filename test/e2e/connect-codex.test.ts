/**
 * Codex CLI connected with `tollgate connect codex` (the CLI from dist/) in a temporary HOME: its
 * config.toml gets the tollgate provider (key in the file, so no export is needed), the real CLI
 * runs a shell command through each of the four upstream protocols, the requests are logged and
 * billed under the codex key, and `tollgate disconnect` puts config.toml back byte for byte.
 * Needs CODEX_BIN; skipped without it.
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

before(async () => {
  if (CODEX)
    rig = await startRig(
      () => `tool=exec_command,args=${encodeURIComponent(JSON.stringify({ cmd: 'cat notes.txt' }))}`,
    );
});

after(async () => {
  if (CODEX) await rig.close();
});

for (const upstream of UPSTREAM_PROTOCOLS) {
  const model = UPSTREAMS[upstream];
  test(
    `tollgate connect → Codex runs a command through a ${upstream} line → tollgate disconnect restores config.toml`,
    { skip: CODEX ? false : 'set CODEX_BIN to run', timeout: 180_000 },
    async () => {
      const before = userFiles(rig, { '.codex/config.toml': CONFIG });
      const key = await connectWithCli(rig, 'codex', ['--model', model]);
      // A fresh shell: no key, no Codex variables; the provider and its key come from config.toml.
      const out = await runCli(CODEX!, ['exec', '--json', '--skip-git-repo-check', 'What does notes.txt say?'], {
        cwd: rig.work,
        env: { PATH: process.env.PATH, HOME: rig.home },
      });
      const events = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map(
          (l) => JSON.parse(l) as { type: string; item?: { type: string; aggregated_output?: string; text?: string } },
        );
      const command = events.find((e) => e.type === 'item.completed' && e.item?.type === 'command_execution');
      assert.ok(command?.item?.aggregated_output?.includes(NOTES), out.slice(-2000));
      const answer = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').at(-1);
      assert.ok(answer?.item?.text?.includes(NOTES), out.slice(-2000));
      await assertLogged(rig.gw, key, model, 'openai-responses', upstream);
      await disconnectWithCli(rig, 'codex', key);
      assertRestored(before);
    },
  );
}
