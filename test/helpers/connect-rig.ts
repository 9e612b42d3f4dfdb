/**
 * The rig for the real-client connect suites (test/e2e/connect-*.test.ts): a gateway with one
 * line per upstream protocol on the mock upstream (each scripted to make the client call one of
 * its own tools), a temporary HOME per run holding the user's own config before connect, and
 * the checks every CLI shares: the requests logged under the tool's own key, with costs, and the
 * tool's files byte-identical after disconnect.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LogEntry } from '../../gateway/admin/contract.js';
import { startGateway, type TestGateway } from './gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from './mock-upstream.js';

/** Upstream protocol → the catalogue model its line serves. */
export const UPSTREAMS = { 'openai-chat': 'gpt-4.1-mini', anthropic: 'claude-haiku-4-5', 'openai-responses': 'gpt-5-mini', gemini: 'gemini-2.5-flash' } as const;
export type UpstreamProtocol = keyof typeof UPSTREAMS;
export const UPSTREAM_PROTOCOLS = Object.keys(UPSTREAMS) as UpstreamProtocol[];

export interface Rig {
  gw: TestGateway;
  mock: MockUpstream;
  /** The folder the CLI runs in, holding notes.txt. */
  work: string;
  notes: string;
  close(): Promise<void>;
}

export const NOTES = 'the launch code is 4141';

/** `script` gives the mock scenario that makes the model call the client's tool, e.g. `tool=Read,args=…`. */
export async function startRig(script: (notes: string) => string): Promise<Rig> {
  const work = mkdtempSync(join(tmpdir(), 'tollgate-connect-work-'));
  const notes = join(work, 'notes.txt');
  writeFileSync(notes, `${NOTES}\n`);
  const mock = await startMockUpstream();
  const gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  const upstream = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  const scenario = script(notes);
  await gw.admin.line({ name: 'openai', protocol: 'openai-chat', baseUrl: scenarioBase(mock, scenario), models: [UPSTREAMS['openai-chat']], ...upstream });
  await gw.admin.line({ name: 'anthropic', protocol: 'anthropic', baseUrl: scenarioOrigin(mock, scenario), models: [UPSTREAMS.anthropic], ...upstream });
  await gw.admin.line({ name: 'responses', protocol: 'openai-responses', baseUrl: scenarioBase(mock, scenario), models: [UPSTREAMS['openai-responses']], ...upstream });
  await gw.admin.line({ name: 'gemini', protocol: 'gemini', baseUrl: scenarioOrigin(mock, scenario), models: [UPSTREAMS.gemini], ...upstream });
  return {
    gw,
    mock,
    work,
    notes,
    async close() {
      await gw.close();
      await mock.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A throwaway HOME with the user's own files in it (null: a file that does not exist). */
export interface Home {
  home: string;
  /** The user's files as they were before connect, by path. */
  before: Map<string, string | null>;
  done(): void;
}

export function makeHome(files: Record<string, string | null>): Home {
  const home = mkdtempSync(join(tmpdir(), 'tollgate-connect-home-'));
  const before = new Map<string, string | null>();
  for (const [rel, text] of Object.entries(files)) {
    const path = join(home, rel);
    before.set(path, text);
    if (text === null) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return { home, before, done: () => rmSync(home, { recursive: true, force: true }) };
}

/** After disconnect: each file byte for byte as before connect (absent if it was absent). */
export function assertRestored(h: Home): void {
  for (const [path, text] of h.before) {
    if (text === null) assert.equal(existsSync(path), false, `${path} is gone again`);
    else assert.equal(readFileSync(path, 'utf8'), text, `${path} is byte-identical`);
  }
}

/** The tool's requests: logged under its own key, answered, billed. */
export async function assertLogged(gw: TestGateway, keyName: string, model: string, inbound: string, upstream: UpstreamProtocol): Promise<LogEntry[]> {
  const rows = (await gw.admin.logs({ key: keyName, model })).filter((r) => r.status === 200);
  assert.ok(rows.length >= 2, `a tool call and the answer: ${rows.length} rows`);
  for (const r of rows) {
    assert.equal(r.keyName, keyName);
    assert.equal(r.inboundProtocol, inbound);
    assert.equal(r.upstreamProtocol, upstream);
    assert.ok(r.costMicro > 0, 'billed');
    assert.ok(r.usage.inputTokens > 0);
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
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${cmd} exited ${code}: ${stderr.slice(-2000)}\n${stdout.slice(-2000)}`))));
  });
}
