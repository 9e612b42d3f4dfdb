/**
 * Gemini CLI (Gemini protocol only) through Tollgate calls a tool against an OpenAI chat upstream
 * and an Anthropic upstream. Needs GEMINI_BIN (npm install --prefix /tmp/tools
 * @google/gemini-cli@0.61.0); skipped without it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const GEMINI = process.env.GEMINI_BIN;
const run = promisify(execFile);
let mock: MockUpstream;
let gw: TestGateway;
let work: string;
let key: string;

before(async () => {
  if (!GEMINI) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-gemini-'));
  mkdirSync(join(work, '.gemini'));
  writeFileSync(
    join(work, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true },
    }),
  );
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  await gw.admin.line({ name: 'openai', baseUrl: `${mock.url}/v1`, models: ['gpt-4.1-mini'] });
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, ''),
    models: ['claude-haiku-4-5'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  key = await gw.admin.key('gemini-cli');
});

after(async () => {
  if (!GEMINI) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

for (const model of ['gpt-4.1-mini', 'claude-haiku-4-5']) {
  test(
    `Gemini CLI completes a turn with a tool call through Tollgate (${model})`,
    { skip: GEMINI ? false : 'set GEMINI_BIN to run', timeout: 120_000 },
    async () => {
      const { stdout } = await run(GEMINI!, ['-m', model, '-p', 'Tell me about this folder', '-y', '-o', 'json'], {
        cwd: work,
        env: {
          PATH: process.env.PATH,
          HOME: work,
          GEMINI_API_KEY: key,
          GOOGLE_GEMINI_BASE_URL: gw.url,
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
        },
      });
      const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        response: string;
        stats: { tools: { totalCalls: number; totalSuccess: number } };
      };
      assert.ok(result.stats.tools.totalCalls >= 1, 'the model called a tool');
      assert.equal(result.stats.tools.totalSuccess, result.stats.tools.totalCalls);
      assert.match(result.response, /^tool result: /, 'the tool result went back and the answer came from it');
      const rows = (await gw.admin.logs({ model })).filter((r) => r.status === 200);
      assert.ok(rows.length >= 2);
      assert.ok(rows.every((r) => r.inboundProtocol === 'gemini' && r.costMicro > 0));
    },
  );
}
