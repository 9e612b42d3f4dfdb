/**
 * Every folder under gateway/presets/ is checked here from its raw JSON, independently of the
 * loader: a new vendor folder is covered the moment it exists. The second half
 * feeds the loader bad presets and expects it to refuse them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadCatalogue, loadPresets } from '../../gateway/catalogue/catalogue.js';
import { QUIRK_VALUES } from '../../gateway/core/quirks.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PRESETS = join(ROOT, 'gateway', 'presets');
const PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'];
const AUTH = ['bearer', 'x-api-key', 'x-goog-api-key', 'none'];
const PRICE = /^\d+(\.\d{1,6})?$/;
const REQUIRED = [
  'id',
  'displayName',
  'baseUrl',
  'protocol',
  'auth',
  'apiKeyEnv',
  'docs',
  'pricingSource',
  'checked',
  'quirks',
  'notes',
  'models',
];
/** Shapes of real credentials: OpenAI/Anthropic/DeepSeek/Moonshot sk-, Groq gsk_, xAI xai-, Google AIza, OpenRouter sk-or-, bearer tokens, JWTs. */
const SECRETS = [
  /sk-[A-Za-z0-9_-]{10,}/,
  /gsk_[A-Za-z0-9]{10,}/,
  /xai-[A-Za-z0-9]{10,}/,
  /AIza[0-9A-Za-z_-]{20,}/,
  /Bearer\s+[A-Za-z0-9._~+/-]{16,}/i,
  /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/,
  /"(api_?key|apiKey|secret|token|password)"\s*:\s*"[^"]+"/i,
];

interface RawModel {
  id: string;
  upstreamId?: string;
  displayName?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  nativeProtocols?: string[];
  prices?: Record<string, unknown>;
}
interface RawPreset {
  id: string;
  baseUrl: string;
  protocol: string;
  auth: string;
  apiKeyEnv: string | null;
  quirks: Record<string, unknown>;
  models: RawModel[];
  [k: string]: unknown;
}

const folders = readdirSync(PRESETS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const raw = new Map<string, RawPreset>(
  folders.map((f) => [f, JSON.parse(readFileSync(join(PRESETS, f, 'preset.json'), 'utf8')) as RawPreset]),
);
const catalogue = loadCatalogue();

test('the presets folder holds every supported vendor, and nothing but vendor folders', () => {
  for (const id of [
    'openai',
    'anthropic',
    'google',
    'deepseek',
    'openrouter',
    'groq',
    'mistral',
    'xai',
    'moonshot',
    'ollama',
    'lmstudio',
  ]) {
    assert.ok(folders.includes(id), `gateway/presets/${id}/ is missing`);
  }
  assert.deepEqual(
    readdirSync(PRESETS).filter((f) => !folders.includes(f)),
    [],
    'gateway/presets/ holds only folders',
  );
});

for (const folder of folders) {
  describe(`gateway/presets/${folder}`, () => {
    const p = raw.get(folder)!;
    const where = `gateway/presets/${folder}/preset.json`;

    test('holds only preset.json (and an optional README.md)', () => {
      const extra = readdirSync(join(PRESETS, folder)).filter((f) => f !== 'preset.json' && f !== 'README.md');
      assert.deepEqual(extra, []);
    });

    test('has every required field, and its id is the folder name', () => {
      for (const k of REQUIRED) assert.ok(k in p, `${where} lacks ${k}`);
      assert.equal(p.id, folder);
      assert.match(String(p.checked), /^\d{4}-\d{2}-\d{2}$/);
      assert.ok(Array.isArray(p.notes));
      assert.ok(Array.isArray(p.models));
    });

    test('protocol and auth are from the allowed sets; a key variable exactly when auth needs one', () => {
      assert.ok(PROTOCOLS.includes(p.protocol), `${where}: protocol ${p.protocol}`);
      assert.ok(AUTH.includes(p.auth), `${where}: auth ${p.auth}`);
      if (p.auth === 'none') assert.equal(p.apiKeyEnv, null);
      else assert.match(String(p.apiKeyEnv), /^[A-Z][A-Z0-9_]*_API_KEY$/);
    });

    test('base URL parses and follows the convention for its protocol', () => {
      const u = new URL(p.baseUrl);
      if (u.protocol === 'http:')
        assert.ok(['127.0.0.1', 'localhost'].includes(u.hostname), `${where}: plain http only for a local server`);
      else assert.equal(u.protocol, 'https:');
      assert.equal(u.search + u.hash + u.username + u.password, '');
      if (p.protocol === 'openai-chat' || p.protocol === 'openai-responses') {
        assert.match(u.pathname, /\/v1$/, `${where}: an ${p.protocol} base URL includes /v1`);
      } else {
        assert.equal(p.baseUrl, u.origin, `${where}: an ${p.protocol} base URL is the origin`);
      }
    });

    test('prices are decimal strings with at most 6 decimals, and carry the four required keys', () => {
      for (const m of p.models) {
        if (m.prices === undefined) continue;
        for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'])
          assert.ok(k in m.prices, `${where}: ${m.id} lacks prices.${k}`);
        for (const [k, v] of Object.entries(m.prices)) {
          assert.ok(typeof v === 'string' && PRICE.test(v), `${where}: ${m.id} prices.${k} = ${JSON.stringify(v)}`);
        }
        assert.ok(
          Number.isInteger(m.contextWindow) &&
            Number.isInteger(m.maxOutputTokens) &&
            m.maxOutputTokens! <= m.contextWindow!,
          `${where}: ${m.id} limits`,
        );
        assert.ok(
          m.nativeProtocols!.length > 0 && m.nativeProtocols!.every((x) => PROTOCOLS.includes(x)),
          `${where}: ${m.id} nativeProtocols`,
        );
      }
    });

    test('model ids are unique within the preset', () => {
      const ids = p.models.map((m) => m.id);
      assert.deepEqual(
        ids.filter((id, i) => ids.indexOf(id) !== i),
        [],
      );
    });

    test('a price-less entry is a bare reference to a model the catalogue has, owned by another preset', () => {
      for (const m of p.models) {
        if (m.prices !== undefined) {
          assert.equal(catalogue.get(m.id)?.vendor, folder, `${where}: ${m.id} is priced here, so this preset owns it`);
          continue;
        }
        assert.deepEqual(
          Object.keys(m).filter((k) => k !== 'id' && k !== 'upstreamId'),
          [],
          `${where}: reference ${m.id} repeats fields of its owner`,
        );
        const owner = catalogue.get(m.id);
        assert.ok(owner, `${where}: ${m.id} is in no preset's catalogue`);
        assert.notEqual(owner.vendor, folder);
      }
    });

    test('holds nothing that looks like a credential', () => {
      for (const f of readdirSync(join(PRESETS, folder))) {
        const text = readFileSync(join(PRESETS, folder, f), 'utf8');
        for (const re of SECRETS) assert.doesNotMatch(text, re, `gateway/presets/${folder}/${f}`);
      }
    });
  });
}

test('the secret scan would catch the usual key shapes', () => {
  const samples = [
    'sk-proj-abcdefghijklmnop',
    'sk-ant-api03-abcdefghijkl',
    'gsk_abcdefghijklmnop',
    'xai-abcdefghijklmnop',
    'AIzaSyA1234567890abcdefghij',
    '"apiKey": "x"',
  ];
  for (const s of samples)
    assert.ok(
      SECRETS.some((re) => re.test(s)),
      s,
    );
});

test('quirks name only flags the adapters implement', () => {
  for (const [folder, p] of raw) {
    for (const [k, v] of Object.entries(p.quirks)) {
      const allowed: readonly string[] | undefined = QUIRK_VALUES[k as keyof typeof QUIRK_VALUES];
      assert.ok(allowed?.includes(v as string), `gateway/presets/${folder}: quirk ${k}=${String(v)}`);
    }
  }
  // api.openai.com refuses max_tokens for its reasoning models.
  assert.equal(raw.get('openai')!.quirks.maxTokensField, 'max_completion_tokens');
  // DeepSeek and Kimi refuse a tool-call turn without its reasoning_content (docs/protocols.md §6.6).
  assert.equal(raw.get('deepseek')!.quirks.reasoningField, 'reasoning_content');
  assert.equal(raw.get('moonshot')!.quirks.reasoningField, 'reasoning_content');
  // Anthropic's API has native structured output (docs/protocols.md §6.17).
  assert.equal(raw.get('anthropic')!.quirks.structuredOutput, 'output_config');
});

test('loadPresets returns every folder, typed, with upstream ids and owned definitions', () => {
  const presets = loadPresets();
  assert.deepEqual([...presets.keys()], folders);
  const or = presets.get('openrouter')!;
  assert.equal(or.auth, 'bearer');
  assert.equal(or.apiKeyEnv, 'OPENROUTER_API_KEY');
  assert.ok(or.models.length > 0 && or.models.every((m) => m.definition === null));
  assert.equal(or.models.find((m) => m.id === 'gpt-4o-mini')?.upstreamId, 'openai/gpt-4o-mini');
  const openai = presets.get('openai')!;
  assert.equal(openai.models.find((m) => m.id === 'gpt-4o-mini')?.upstreamId, 'gpt-4o-mini');
  assert.equal(openai.models.find((m) => m.id === 'gpt-4o-mini')?.definition?.prices.input, 150_000);
  assert.deepEqual(presets.get('ollama')!.models, []);
  assert.deepEqual([presets.get('ollama')!.local, presets.get('lmstudio')!.local, openai.local], [true, true, false]);
  assert.deepEqual(
    presets.get('openai')!.retired.find((r) => r.id === 'o4-mini'),
    { id: 'o4-mini', retired: null, replacement: 'gpt-5.4-mini', vendor: 'openai' },
  );
  assert.deepEqual(
    [
      openai.models.find((m) => m.id === 'gpt-5')?.definition?.retires,
      openai.models.find((m) => m.id === 'gpt-5')?.definition?.replacement,
    ],
    ['2026-12-11', 'gpt-5.5'],
  );
  assert.equal(presets.get('ollama')!.baseUrl, 'http://127.0.0.1:11434/v1');
  assert.equal(presets.get('lmstudio')!.baseUrl, 'http://127.0.0.1:1234/v1');
  assert.equal(presets.get('anthropic')!.baseUrl, 'https://api.anthropic.com');
  assert.equal(presets.get('google')!.protocol, 'gemini');
});

describe('the loader refuses a bad preset', () => {
  const good = {
    id: 'acme',
    displayName: 'Acme',
    baseUrl: 'https://api.acme.test/v1',
    protocol: 'openai-chat',
    auth: 'bearer',
    apiKeyEnv: 'ACME_API_KEY',
    docs: 'https://acme.test/docs',
    pricingSource: 'https://acme.test/pricing',
    checked: '2026-11-22',
    quirks: {},
    notes: [],
    models: [
      {
        id: 'acme-1',
        displayName: 'Acme 1',
        contextWindow: 1000,
        maxOutputTokens: 100,
        nativeProtocols: ['openai-chat'],
        prices: { input: '1', output: '2', cacheRead: '0.1', cacheWrite: '0' },
      },
    ],
  };
  type Edit = (p: typeof good & Record<string, unknown>) => void;
  /** Writes `good`, changed by `edit`, plus any extra presets, to a temp dir and loads the catalogue from it. */
  function load(edit: Edit, extra: Record<string, unknown> = {}): void {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-presets-'));
    try {
      const p = structuredClone(good) as typeof good & Record<string, unknown>;
      edit(p);
      for (const [folder, content] of Object.entries({ acme: p, ...extra })) {
        mkdirSync(join(dir, folder));
        writeFileSync(join(dir, folder, 'preset.json'), JSON.stringify(content));
      }
      loadCatalogue(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('the unchanged sample loads', () => {
    assert.doesNotThrow(() => load(() => {}));
  });

  const cases: [string, Edit, RegExp][] = [
    ['an id that is not the folder name', (p) => (p.id = 'other'), /must equal the folder name/],
    ['an unknown protocol', (p) => (p.protocol = 'soap'), /protocol must be one of/],
    ['an unknown auth style', (p) => (p.auth = 'basic'), /auth must be one of/],
    ['an openai-chat base URL without /v1', (p) => (p.baseUrl = 'https://api.acme.test'), /must end in \/v1/],
    [
      'an anthropic base URL with a path',
      (p) => ((p.protocol = 'anthropic'), (p.baseUrl = 'https://api.acme.test/v1')),
      /must be the origin/,
    ],
    ['plain http to a remote host', (p) => (p.baseUrl = 'http://api.acme.test/v1'), /must use https/],
    ['a key in apiKeyEnv', (p) => (p.apiKeyEnv = 'sk-abcdefghijklmnop'), /apiKeyEnv must name an environment variable/],
    ['a key variable with auth none', (p) => (p.auth = 'none'), /apiKeyEnv must be null/],
    [
      'a price as a JSON number',
      (p) => ((p.models[0]!.prices as Record<string, unknown>).input = 0.15),
      /decimal string/,
    ],
    ['a price with 7 decimals', (p) => (p.models[0]!.prices.input = '0.0000001'), /at most 6 decimals/],
    [
      'a missing cacheWrite price',
      (p) => delete (p.models[0]!.prices as Partial<(typeof p.models)[0]['prices']>).cacheWrite,
      /prices.cacheWrite is required/,
    ],
    [
      'an unknown price key',
      (p) => ((p.models[0]!.prices as Record<string, unknown>).video = '1'),
      /unknown field video/,
    ],
    ['a model listed twice', (p) => p.models.push(structuredClone(p.models[0]!)), /listed twice/],
    ['an unknown native protocol', (p) => (p.models[0]!.nativeProtocols = ['grpc']), /unknown protocol/],
    [
      'an output cap above the context window',
      (p) => (p.models[0]!.maxOutputTokens = 2000),
      /larger than contextWindow/,
    ],
    ['an unknown quirk', (p) => (p.quirks = { stripSystem: true } as never), /unknown quirk/],
    [
      'a bad quirk value',
      (p) => (p.quirks = { maxTokensField: 'max_output' } as never),
      /quirks.maxTokensField must be one of/,
    ],
    ['a typo in a field name', (p) => (p.baseURL = 'x'), /unknown field baseURL/],
    ['upstreamId equal to id', (p) => ((p.models[0] as Record<string, unknown>).upstreamId = 'acme-1'), /leave it out/],
    ['priced models without a pricing source', (p) => (p.pricingSource = null as never), /pricingSource is required/],
    [
      'a shutdown date that is no date',
      (p) => ((p.models[0] as Record<string, unknown>).retires = '2026-13-40'),
      /retires "2026-13-40" must be a date/,
    ],
    [
      'a replacement without a shutdown date',
      (p) => ((p.models[0] as Record<string, unknown>).replacement = 'acme-2'),
      /replacement is given only with retires/,
    ],
    [
      'a replacement no preset defines',
      (p) => Object.assign(p.models[0]!, { retires: '2027-01-01', replacement: 'nowhere-2' }),
      /names a replacement, nowhere-2, that no preset defines/,
    ],
    [
      'a retired id that is also served',
      (p) => (p.retired = [{ id: 'acme-1', replacement: 'acme-1' }]),
      /acme-1 is also listed in models/,
    ],
    [
      'a retired id without a replacement',
      (p) => (p.retired = [{ id: 'acme-0' }]),
      /replacement must be a non-empty string/,
    ],
    [
      'a retired id whose replacement is not in the catalogue',
      (p) => (p.retired = [{ id: 'acme-0', replacement: 'nowhere-3' }]),
      /retired acme-0 names a replacement, nowhere-3, that no preset defines/,
    ],
    [
      'a typo in a retired entry',
      (p) => (p.retired = [{ id: 'acme-0', replacment: 'acme-1' }]),
      /unknown field replacment/,
    ],
    ['a local preset that takes a key', (p) => (p.local = true), /a local preset takes no key/],
  ];
  for (const [name, edit, message] of cases) {
    test(name, () =>
      assert.throws(
        () => load(edit),
        (err: Error) => message.test(err.message) && err.message.startsWith('gateway/presets/acme/preset.json: '),
      ),
    );
  }

  test('a mistake the schema finds is named by file, entry and field', () => {
    const at = 'gateway/presets/acme/preset.json: ';
    const said: [Edit, string][] = [
      [
        (p) => ((p.models[0]!.prices as Record<string, unknown>).input = 0.15),
        'models[0] (acme-1): prices.input must be a decimal string of USD per million tokens with at most 6 decimals, e.g. "0.15"',
      ],
      [
        (p) => Object.assign(p.models[0]!.prices, { video: '1', text: '2' }),
        'models[0] (acme-1): unknown fields video, text in prices (allowed: input, output, cacheRead, cacheWrite, cacheWrite1h, audioInput, imageInput)',
      ],
      [
        (p) => (p.models[0]!.nativeProtocols = ['gemini', 'gemini']),
        'models[0] (acme-1): nativeProtocols lists a protocol twice',
      ],
      [
        (p) => (p.models[0]!.contextWindow = 0),
        'models[0] (acme-1): contextWindow must be a positive whole number of tokens',
      ],
      [(p) => (p.models = ['acme-1'] as never), 'models[0]: must be an object'],
      [(p) => (p.retired = [{ id: 'acme-0' }]), 'retired[0]: replacement must be a non-empty string'],
      [(p) => delete (p as Partial<typeof p>).docs, 'docs must be a non-empty string'],
      [(p) => (p.docs = 'http://acme.test/docs'), 'docs must be an https URL'],
      [(p) => (p.quirks = null as never), 'quirks must be an object ({} when there are none)'],
    ];
    for (const [edit, message] of said) assert.throws(() => load(edit), { message: at + message });
  });

  test('a reference to a model no preset defines', () => {
    assert.throws(
      () => load((p) => p.models.push({ id: 'nowhere-1' } as never)),
      /no prices and no other preset defines it/,
    );
  });

  test('a reference that repeats its owner’s fields', () => {
    const router = { ...structuredClone(good), id: 'router', models: [{ id: 'acme-1', displayName: 'Acme 1' }] };
    assert.throws(() => load(() => {}, { router }), /unknown field displayName in a reference/);
  });

  test('a model defined (priced) by two presets', () => {
    const twin = { ...structuredClone(good), id: 'twin' };
    assert.throws(
      () => load(() => {}, { twin }),
      /acme-1 is defined by both gateway\/presets\/acme and gateway\/presets\/twin/,
    );
  });

  test('a bare reference to a model another preset owns loads', () => {
    const router = {
      ...structuredClone(good),
      id: 'router',
      pricingSource: null,
      models: [{ id: 'acme-1', upstreamId: 'acme/acme-1' }],
    };
    assert.doesNotThrow(() => load(() => {}, { router }));
  });

  test('a folder without preset.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-presets-'));
    try {
      mkdirSync(join(dir, 'empty'));
      assert.throws(() => loadPresets(dir), /gateway\/presets\/empty\/ has no preset.json/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
