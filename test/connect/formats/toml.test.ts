import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from '@decimalturn/toml-patch';
import { GatewayError } from '../../../gateway/core/errors.js';
import { toml } from '../../../gateway/connect/formats/toml.js';

const CONFIG = `# Codex config, by hand
model = "gpt-5"   # my usual model
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"   # runs docs
args = ["-y",   "docs-mcp"]
env = { A = "1",   B = "2" }

[model_providers.other]
name = "Other"
base_url = "https://other.example/v1"

[profiles.fast]
model = "o4-mini"
`;

const OURS = [
  { path: ['model'], value: 'claude-sonnet-4-6' },
  { path: ['model_provider'], value: 'tollgate' },
  { path: ['model_providers', 'tollgate', 'name'], value: 'Tollgate' },
  { path: ['model_providers', 'tollgate', 'base_url'], value: 'http://127.0.0.1:4141/v1' },
  { path: ['model_providers', 'tollgate', 'wire_api'], value: 'responses' },
];

test('our entries go in; comments, spacing and unknown tables stay byte for byte', () => {
  const after = toml.edit(CONFIG, OURS);
  const doc = plain(toml.read(after, 'f')) as any;
  assert.equal(doc.model, 'claude-sonnet-4-6');
  assert.equal(doc.model_provider, 'tollgate');
  assert.deepEqual(doc.model_providers.tollgate, {
    name: 'Tollgate',
    base_url: 'http://127.0.0.1:4141/v1',
    wire_api: 'responses',
  });
  assert.deepEqual(doc.model_providers.other, { name: 'Other', base_url: 'https://other.example/v1' });
  assert.equal(doc.profiles.fast.model, 'o4-mini', 'a table key with the same name is not ours');
  for (const line of CONFIG.split('\n').filter((l) => !l.startsWith('model =')))
    assert.ok(after.includes(line), `kept: ${line}`);
  assert.ok(
    after.includes('model = "claude-sonnet-4-6"   # my usual model'),
    'the comment after a changed value stays',
  );
});

test('putting the old values back gives the same bytes', () => {
  const after = toml.edit(CONFIG, OURS);
  const back = toml.edit(after, [
    { path: ['model'], value: 'gpt-5' },
    { path: ['model_provider'], value: undefined },
    { path: ['model_providers', 'tollgate'], value: undefined },
  ]);
  assert.equal(back, CONFIG);
});

test('a new file gets a [model_providers.tollgate] section and a final newline', () => {
  const out = toml.edit('', OURS);
  assert.ok(out.includes('\n[model_providers.tollgate]\nname = "Tollgate"\n'), out);
  assert.ok(out.startsWith('model = "claude-sonnet-4-6"\nmodel_provider = "tollgate"\n'), out);
  assert.ok(out.endsWith('\n'));
  assert.deepEqual(plain(parse(out)), {
    model: 'claude-sonnet-4-6',
    model_provider: 'tollgate',
    model_providers: { tollgate: { name: 'Tollgate', base_url: 'http://127.0.0.1:4141/v1', wire_api: 'responses' } },
  });
});

test('root keys go before the first table, so they stay root keys', () => {
  const out = toml.edit('check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n', OURS);
  const doc = plain(parse(out)) as any;
  assert.equal(doc.model_provider, 'tollgate');
  assert.deepEqual(doc.analytics, { enabled: false });
});

test('CRLF files stay CRLF', () => {
  const out = toml.edit('a = 1\r\n# c\r\n[t]\r\nx = 1\r\n', [{ path: ['model'], value: 'm' }]);
  assert.ok(!/[^\r]\n/.test(out), JSON.stringify(out));
});

test('a file that is not TOML is refused, naming the line', () => {
  assert.throws(
    () => toml.read('model = "x"\nmodel = "y"\n', '/home/u/.codex/config.toml'),
    (e: unknown) =>
      e instanceof GatewayError &&
      e.code === 'file_invalid' &&
      /config\.toml is not valid TOML \(at \(2, 1\).*Value already defined for model/.test(e.message),
  );
  assert.throws(() => toml.read('[table\n', 'f'), /not valid TOML/);
});

/** toml-patch builds objects without a prototype; compare them as plain data. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}
