/**
 * Replays the fuzz corpus (test/fuzz/corpus.json, written by generate.ts) against a real gateway:
 * every malformed body or header gets a 4xx in the error shape of the interface it was sent to,
 * within a deadline (no hang), the gateway keeps answering (no crash), and the ledger is not damaged:
 * nothing held, the balance unchanged, the invariant intact and `doctor` clean.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { faultyGateway, KEY_ENV, MODEL_OF } from '../faults/rig.js';
import { bodyBytes, generate, type FuzzCase, type Target } from './generate.js';

const CORPUS: FuzzCase[] = JSON.parse(readFileSync(new URL('./corpus.json', import.meta.url), 'utf8'));
const SEED = 20261124;

/** The model each interface's cases name; its line speaks the same protocol. */
const MODEL: Record<Exclude<Target, 'admin'>, string> = MODEL_OF;

/**
 * Cases that show a known defect not fixed yet, by the case's `why`, with what is wrong: they run
 * and are reported as todo (a todo that passes is reported too: then remove it from here).
 * They use the lenient key, so what they forward and spend stays out of the strict checks.
 */
const KNOWN: Record<string, string> = {};

interface Reply {
  status: number;
  body: string;
}

function send(gw: TestGateway, c: FuzzCase, secret: string, adminToken: string): Promise<Reply> {
  const model = c.target === 'admin' ? '' : MODEL[c.target];
  const body = c.body === null ? undefined : bodyBytes(c.body, model);
  const credential =
    c.auth === 'none'
      ? null
      : c.auth === 'wrong'
        ? c.target === 'admin'
          ? 'x'.repeat(adminToken.length)
          : `sk-${'0'.repeat(48)}`
        : c.target === 'admin'
          ? adminToken
          : secret;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  if (credential !== null) {
    headers.authorization = `Bearer ${credential}`;
    if (c.target === 'anthropic') headers['x-api-key'] = credential;
    if (c.target === 'gemini') headers['x-goog-api-key'] = credential;
  }
  for (const [name, value] of Object.entries(c.headers)) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  if (body !== undefined) headers['content-length'] = String(body.length);
  const url = new URL(c.path.replaceAll('{model}', model), gw.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: c.method, headers, signal: AbortSignal.timeout(15_000) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Whether `body` is an error in the shape of `target`'s protocol, for `status`. */
export function errorShape(target: Target, status: number, text: string): string | null {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `not JSON: ${text.slice(0, 120)}`;
  }
  const e = b.error as Record<string, unknown> | undefined;
  if (typeof e !== 'object' || e === null || typeof e.message !== 'string' || e.message === '')
    return `no error.message: ${text.slice(0, 200)}`;
  switch (target) {
    case 'openai-chat':
    case 'openai-responses':
      return typeof e.type === 'string' && 'code' in e
        ? null
        : `not OpenAI's {error:{message,type,code}}: ${text.slice(0, 200)}`;
    case 'anthropic':
      return b.type === 'error' && typeof e.type === 'string'
        ? null
        : `not Anthropic's {type:"error",error:{type,message}}: ${text.slice(0, 200)}`;
    case 'gemini':
      return e.code === status && typeof e.status === 'string'
        ? null
        : `not Gemini's {error:{code,message,status}}: ${text.slice(0, 200)}`;
    case 'admin':
      return typeof e.code === 'string' ? null : `not the admin API's {error:{code,message}}: ${text.slice(0, 200)}`;
  }
}

let mock: MockUpstream;
let gw: TestGateway;
let secret: string;
/** The key of the lenient and KNOWN cases, which may be forwarded and billed. */
let lenientSecret: string;
let balanceBefore: number;

before(async () => {
  mock = await startMockUpstream();
  gw = await faultyGateway(mock, '');
  // The line the admin cases update.
  await gw.admin.line({
    name: 'fuzz',
    protocol: 'openai-chat',
    baseUrl: scenarioBase(mock, ''),
    models: ['gpt-4.1'],
    apiKeyEnv: KEY_ENV,
  });
  secret = await gw.admin.key('fuzz');
  lenientSecret = await gw.admin.key('lenient');
  balanceBefore = (await gw.admin.wallet()).balanceMicro;
});

after(async () => {
  await gw?.close();
  await mock?.close();
});

test('the corpus is what generate.ts writes (regenerate with npm run fuzz:generate)', () => {
  assert.deepEqual(CORPUS, JSON.parse(JSON.stringify(generate(SEED))));
});

for (const target of ['openai-chat', 'anthropic', 'openai-responses', 'gemini', 'admin'] as const) {
  describe(`fuzz corpus: ${target}`, () => {
    for (const c of CORPUS.filter((k) => k.target === target)) {
      const todo = KNOWN[c.why];
      test(`${c.id} ${c.why}`, todo ? { todo } : {}, async () => {
        const strict = c.expect === '4xx' && !todo;
        const reply = await send(gw, c, strict ? secret : lenientSecret, gw.running.adminToken);
        assert.ok(
          reply.status < 500 && (reply.status >= 400 || !strict),
          `${reply.status}: ${reply.body.slice(0, 300)}`,
        );
        if (reply.status < 400) return;
        const wrong = errorShape(target, reply.status, reply.body);
        assert.equal(wrong, null, wrong ?? '');
      });
    }
  });
}

test('after the corpus: nothing forwarded, held or spent, the ledger intact', async () => {
  const rows = await gw.admin.logs({ key: 'fuzz' });
  assert.deepEqual(
    rows.filter((r) => r.status < 400 || r.status >= 500 || r.costMicro !== 0),
    [],
    'a malformed request was billed or failed as a 5xx',
  );
  // Only the lenient cases' requests (their own key) may have reached the upstream and cost money.
  const known = await gw.admin.logs({ key: 'lenient' });
  const forwarded = mock.requests.filter((r) => r.method === 'POST').length;
  assert.equal(forwarded, known.filter((r) => r.attempts > 0).length, 'a malformed request reached the upstream');
  const wallet = await gw.admin.wallet();
  assert.equal(wallet.heldMicro, 0);
  assert.equal(wallet.balanceMicro, balanceBefore - known.reduce((sum, r) => sum + r.costMicro, 0));
  assert.equal(gw.running.gateway.ledger.checkInvariant().ok, true);
  const doctor = await gw.admin.doctor();
  assert.equal(doctor.ok, true, JSON.stringify(doctor));
});
