/**
 * The rig for the real-client connect suites (test/e2e/connect-*.test.ts): a gateway with one
 * line per upstream protocol on the mock upstream (each scripted to make the client call one of
 * its own tools), a temporary HOME that the gateway connects tools in and the tools run in, the
 * `tollgate` CLI from dist/ as users run it, and the checks every CLI shares: the requests logged
 * under the tool's own key, with costs, and the tool's files byte-identical after disconnect.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ConnectionsView, KeyView, LogEntry } from '../../gateway/contract/admin/index.js';
import { findTool } from '../../gateway/connect/index.js';
import { REPO, startGateway, type TestGateway } from './gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from './mock-upstream.js';

/** Upstream protocol → the catalogue model its line serves. */
export const UPSTREAMS = {
  'openai-chat': 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  'openai-responses': 'gpt-5-mini',
  gemini: 'gemini-2.5-flash',
} as const;
export type UpstreamProtocol = keyof typeof UPSTREAMS;
export const UPSTREAM_PROTOCOLS = Object.keys(UPSTREAMS) as UpstreamProtocol[];

export interface Rig {
  gw: TestGateway;
  mock: MockUpstream;
  /** The HOME the gateway connects tools in and the tools run in. */
  home: string;
  /** The folder the CLI runs in, holding notes.txt. */
  work: string;
  notes: string;
  close(): Promise<void>;
}

/** The CLI as installed: `npm run build` (run by `npm ci` and `npm install`) makes it. */
export const CLI_JS = join(REPO, 'dist/gateway/cli/main.js');

export const NOTES = 'the launch code is 4141';

/** `script` gives the mock scenario that makes the model call the client's tool, e.g. `tool=Read,args=…`. */
export async function startRig(script: (notes: string) => string): Promise<Rig> {
  const work = mkdtempSync(join(tmpdir(), 'tollgate-connect-work-'));
  const notes = join(work, 'notes.txt');
  writeFileSync(notes, `${NOTES}\n`);
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing: run "npm run build" first.`);
  const mock = await startMockUpstream();
  const home = mkdtempSync(join(tmpdir(), 'tollgate-connect-home-'));
  const gw = await startGateway(undefined, undefined, { home });
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  const upstream = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  const scenario = script(notes);
  await gw.admin.line({
    name: 'openai',
    protocol: 'openai-chat',
    baseUrl: scenarioBase(mock, scenario),
    models: [UPSTREAMS['openai-chat']],
    ...upstream,
  });
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, scenario),
    models: [UPSTREAMS.anthropic],
    ...upstream,
  });
  await gw.admin.line({
    name: 'responses',
    protocol: 'openai-responses',
    baseUrl: scenarioBase(mock, scenario),
    models: [UPSTREAMS['openai-responses']],
    ...upstream,
  });
  await gw.admin.line({
    name: 'gemini',
    protocol: 'gemini',
    baseUrl: scenarioOrigin(mock, scenario),
    models: [UPSTREAMS.gemini],
    ...upstream,
  });
  return {
    gw,
    mock,
    home,
    work,
    notes,
    async close() {
      await gw.close();
      await mock.close();
      rmSync(work, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * The rig's HOME emptied (what the tools kept from an earlier run goes too) and given the user's
 * own files (null: a file that does not exist). Returns them by path, as they were before connect.
 */
export function userFiles(rig: Rig, files: Record<string, string | null>): Map<string, string | null> {
  for (const name of readdirSync(rig.home)) rmSync(join(rig.home, name), { recursive: true, force: true });
  const before = new Map<string, string | null>();
  for (const [rel, text] of Object.entries(files)) {
    const path = join(rig.home, rel);
    before.set(path, text);
    if (text === null) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return before;
}

/** After disconnect: each file byte for byte as before connect (absent if it was absent). */
export function assertRestored(before: Map<string, string | null>): void {
  for (const [path, text] of before) {
    if (text === null) assert.equal(existsSync(path), false, `${path} is gone again`);
    else assert.equal(readFileSync(path, 'utf8'), text, `${path} is byte-identical`);
  }
}

/** `tollgate …` from dist/, in the rig's HOME, against the rig's gateway (found through its data dir). */
export function tollgate(rig: Rig, args: string[]): Promise<string> {
  return runCli(process.execPath, [CLI_JS, ...args], {
    cwd: rig.work,
    env: { PATH: process.env.PATH, HOME: rig.home, TOLLGATE_DATA_DIR: rig.gw.dataDir },
  });
}

/** The status the console and the tray read (the CLI's --status prints the same; test/integration/cli-connect.test.ts runs it). */
async function toolStatus(rig: Rig, tool: string): Promise<ConnectionsView['tools'][number]> {
  return (await rig.gw.admin.client.call('connectStatus')).tools.find((t) => t.tool === tool)!;
}

/** `tollgate connect TOOL … --yes` (TOOL may be an alias); then the status says the wiring matches. Returns the tool's key. */
export async function connectWithCli(rig: Rig, given: string, args: string[]): Promise<KeyView> {
  const out = await tollgate(rig, ['connect', given, ...args, '--yes']);
  const tool = findTool(given)!.id;
  const name = /with the key "([^"]+)"/.exec(out)?.[1];
  assert.equal(name, tool, `a key named after the tool: ${out}`);
  const status = await toolStatus(rig, tool);
  assert.deepEqual(
    [status.connected, status.matches, status.pointsAtTollgate, status.problems],
    [true, true, true, []],
  );
  const key = (await rig.gw.admin.client.call('listKeys')).keys.find((k) => k.name === name);
  assert.ok(key, `the key "${name}" exists`);
  return key;
}

/** `tollgate disconnect TOOL`: every file put back as it was (or removed), the key made for the tool deleted. */
export async function disconnectWithCli(rig: Rig, tool: string, key: KeyView): Promise<void> {
  const out = await tollgate(rig, ['disconnect', tool]);
  assert.doesNotMatch(out, /edited since connect|deleted since connect/, out);
  assert.match(out, new RegExp(`Key "${key.name}" deleted`), out);
  assert.equal((await toolStatus(rig, tool)).connected, false);
}

/** The tool's requests: logged under its own key, answered, billed. */
export async function assertLogged(
  gw: TestGateway,
  key: KeyView,
  model: string,
  inbound: string,
  upstream: UpstreamProtocol,
): Promise<LogEntry[]> {
  const rows = (await gw.admin.logs({ key: key.name, model })).filter((r) => r.status === 200 && r.keyId === key.id);
  assert.ok(rows.length >= 2, `a tool call and the answer: ${rows.length} rows`);
  for (const r of rows) {
    assert.equal(r.keyName, key.name);
    assert.equal(r.inboundProtocol, inbound);
    assert.equal(r.upstreamProtocol, upstream);
    assert.ok(r.costMicro > 0, 'billed');
    assert.ok(r.usage.inputTokens > 0, `input tokens counted: ${r.usage.inputTokens}`);
  }
  return rows;
}

/** Runs a CLI with stdin closed (Codex and Gemini CLI wait for more input on an open stdin). */
export function runCli(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${cmd} exited ${code}: ${stderr.slice(-2000)}\n${stdout.slice(-2000)}`)),
    );
  });
}
