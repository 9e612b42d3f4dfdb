/**
 * Adding a line right the first time, through the admin API: whether the keychain can hold a key
 * here (asked before the dialog opens), the models a server lists before its line exists (matched
 * to the catalogue), a key variable that is not set warned about on save, and a keychain failure
 * told in plain words.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import { refusal, startGateway, tempDataDir, waitFor, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

/** A keychain that is not there, as on a headless Linux box without a Secret Service. */
class NoKeychain extends MemorySecretStore {
  override async set(): Promise<void> {
    throw new Error('Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled');
  }
}

describe('line setup', () => {
  let gw: TestGateway;
  let bare: TestGateway;
  let mock: MockUpstream;

  before(async () => {
    mock = await startMockUpstream();
    gw = await startGateway(tempDataDir(), new MemorySecretStore());
    bare = await startGateway(tempDataDir(), new NoKeychain());
  });
  after(async () => {
    await gw?.close();
    await bare?.close();
    await mock?.close();
  });

  test('key storage says whether the keychain can hold a key, and why not in words', async () => {
    assert.deepEqual(await gw.admin.call('keyStorage'), { keychain: true, keychainReason: null });
    const none = await bare.admin.call('keyStorage');
    assert.equal(none.keychain, false);
    assert.match(none.keychainReason ?? '', /no OS keychain .* environment variable/);
    assert.doesNotMatch(none.keychainReason ?? '', /DBus|line_/);
  });

  test('a key the keychain cannot store is refused in plain words, without the D-Bus text or a line id', async () => {
    const err = await refusal(bare.admin.call('addLine', { body: { preset: 'openai', apiKey: 'sk-test-key' } }));
    assert.equal(err.code, 'keychain_unavailable');
    assert.doesNotMatch(err.message, /DBus|line_[0-9a-f]/);
    assert.deepEqual((await bare.admin.call('listLines')).lines, []);
  });

  test('probe lists the models of a server with no line yet, matched to the catalogue', async () => {
    const probed = await gw.admin.call('probeLine', {
      body: { protocol: 'openai-chat', baseUrl: `${mock.url}/v1`, apiKey: 'sk-typed-not-stored' },
    });
    assert.deepEqual(
      probed.models.map((m) => [m.id, m.catalogueId]),
      [
        ['mock-small', null],
        ['mock-large', null],
      ],
    );
    assert.deepEqual((await gw.admin.call('listLines')).lines, [], 'probing adds nothing');
    const failed = await refusal(
      gw.admin.call('probeLine', { body: { protocol: 'openai-chat', baseUrl: `${mock.url}/s/status=401/v1` } }),
    );
    assert.equal(failed.code, 'upstream_error');
    const noUrl = await refusal(gw.admin.call('probeLine', { body: { protocol: 'openai-chat' } }));
    assert.equal(noUrl.code, 'invalid_request');
  });

  test('a line whose key variable is not set saves with a warning that says so', async () => {
    const added = await gw.admin.call('addLine', {
      body: { preset: 'openai', name: 'env-line', apiKeyEnv: 'TOLLGATE_TEST_UNSET_API_KEY' },
    });
    assert.equal(added.warnings?.length, 1);
    assert.match(added.warnings![0]!, /TOLLGATE_TEST_UNSET_API_KEY is not set/);
    const keyed = await gw.admin.call('updateLine', { params: { name: 'env-line' }, body: { apiKey: 'sk-x' } });
    assert.equal(keyed.warnings, undefined, 'a key in the keychain needs no variable');
    assert.equal(keyed.line.apiKeySource, 'keychain');
    // Its openai preset serves gpt-4o-mini too: left in place it would take the next test's requests.
    await gw.admin.call('removeLine', { params: { name: 'env-line' } });
  });

  test("line usage: each line's requests, failures, median latency and last failure over the last day", async () => {
    await gw.admin.topup(5);
    await gw.admin.line({ name: 'up', baseUrl: `${mock.url}/v1`, models: ['gpt-4o'] });
    await gw.admin.line({ name: 'down', baseUrl: `${mock.url}/s/status=500/v1`, models: ['gpt-4o-mini'] });
    const openai = gw.openai(await gw.admin.key('usage'));
    for (let i = 0; i < 3; i++)
      await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${i}` }] });
    await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'fails' }] })
      .catch(() => undefined);
    // A failed request's row may be committed just after its error reached the client.
    await waitFor(async () => (await gw.admin.logs()).some((r) => r.status >= 500), 'the failed row');
    const rows = await gw.admin.logs();
    const { lines } = await gw.admin.call('getLineUsage');
    const up = lines.find((l) => l.line === 'up')!;
    const latencies = rows
      .filter((r) => r.line === 'up')
      .map((r) => r.latencyMs)
      .sort((a, b) => a - b);
    assert.deepEqual([up.requests, up.errors, up.p50LatencyMs, up.lastError], [3, 0, latencies[1], null]);
    const down = lines.find((l) => l.line === 'down')!;
    assert.deepEqual([down.requests, down.errors], [1, 1]);
    assert.ok(down.lastError && down.lastError.status >= 500, JSON.stringify(down.lastError));
    const later = await gw.admin.call('getLineUsage', { query: { since: Date.now() + 60_000 } });
    assert.deepEqual(later.lines, []);
  });
});
