/**
 * Writes test/fuzz/corpus.json: malformed bodies and headers for the four model interfaces and
 * the admin API, from fixed rules and a seeded random source, so the corpus is reviewable in a diff
 * and the same on every machine. `npm run fuzz:generate` rewrites it; fuzz.test.ts replays it.
 */
import { writeFileSync } from 'node:fs';
import { rng } from '../helpers/seeded.js';

export type Target = 'openai-chat' | 'anthropic' | 'openai-responses' | 'gemini' | 'admin';

export interface FuzzCase {
  id: string;
  target: Target;
  method: string;
  /** `{model}` is replaced by the model the gateway serves. */
  path: string;
  /** Added to the target's usual headers; a null value removes one of them. */
  headers: Record<string, string | null>;
  /** The body, in parts joined as bytes (null sends none): text, bytes that are not UTF-8, or a repeat. */
  body: Part[] | null;
  /** `valid` sends the target's credential; `none` and `wrong` test authentication. */
  auth: 'valid' | 'none' | 'wrong';
  /** What the case is: a one-line reason a reader can check. */
  why: string;
  /**
   * `4xx`: refused in the interface's error shape. `no-5xx`: a request a lenient reading may
   * accept (a mislabelled content type, an optional field left out): any answer but a 5xx, a hang
   * or a crash, and a 4xx still in the right shape.
   */
  expect: '4xx' | 'no-5xx';
}

export type Part = string | { b64: string } | { repeat: string; times: number };

/** The bytes of a case's body. */
export function bodyBytes(parts: Part[], model: string): Buffer {
  return Buffer.concat(
    parts.map((p) => {
      if (typeof p === 'string') return Buffer.from(p.replaceAll('{model}', model));
      if ('b64' in p) return Buffer.from(p.b64, 'base64');
      return Buffer.from(p.repeat.repeat(p.times));
    }),
  );
}

const MODEL_TARGETS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;

/** A request each interface accepts, mutated by the rules below. */
const VALID: Record<(typeof MODEL_TARGETS)[number], { path: string; body: Record<string, unknown> }> = {
  'openai-chat': {
    path: '/v1/chat/completions',
    body: { model: '{model}', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  },
  anthropic: {
    path: '/v1/messages',
    body: { model: '{model}', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  },
  'openai-responses': { path: '/v1/responses', body: { model: '{model}', max_output_tokens: 16, input: 'hi' } },
  gemini: {
    path: '/v1beta/models/{model}:generateContent',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  },
};

/** Fields a request may leave out or set to null. */
const OPTIONAL: Record<(typeof MODEL_TARGETS)[number], string[]> = {
  'openai-chat': ['max_tokens'],
  anthropic: [],
  'openai-responses': ['max_output_tokens'],
  gemini: [],
};

/** Values of the wrong type for a field, each one the JSON text of a value. */
const WRONG_VALUES = ['null', '123', '-1', '"text"', '[]', '{}', 'true', '1e308', '[null]', '[1,2]', '{"a":{}}'];

const parts = (body: string | Buffer | Part[]): Part[] =>
  Array.isArray(body) ? body : typeof body === 'string' ? [body] : [{ b64: body.toString('base64') }];

export function generate(seed: number): FuzzCase[] {
  const r = rng(seed);
  const cases: FuzzCase[] = [];
  const add = (
    c: Omit<FuzzCase, 'id' | 'headers' | 'auth' | 'expect'> & Partial<Pick<FuzzCase, 'headers' | 'auth' | 'expect'>>,
  ): void => {
    cases.push({
      id: `${c.target}-${String(cases.length).padStart(4, '0')}`,
      headers: {},
      auth: 'valid',
      expect: '4xx',
      ...c,
    });
  };

  for (const target of MODEL_TARGETS) {
    const { path, body } = VALID[target];
    const valid = JSON.stringify(body);
    const post = (
      why: string,
      text: string | Buffer | Part[] | null,
      headers: Record<string, string | null> = {},
      auth: FuzzCase['auth'] = 'valid',
      expect: FuzzCase['expect'] = '4xx',
    ): void =>
      add({ target, method: 'POST', path, body: text === null ? null : parts(text), headers, auth, why, expect });
    const lenient = (why: string, text: string | Part[], headers: Record<string, string | null> = {}): void =>
      post(why, text, headers, 'valid', 'no-5xx');

    // Not a JSON object at all.
    for (const text of [
      '',
      ' ',
      'null',
      '[]',
      '"hi"',
      '42',
      'true',
      '{',
      '}',
      '{"model":',
      '{}{}',
      `${valid}x`,
      `[${valid}]`,
      'NaN',
      "{'model':'x'}",
    ]) {
      post(`body ${JSON.stringify(text.slice(0, 40))}`, text);
    }
    post('no body', null);
    // Every strict prefix of a JSON object is invalid JSON: seeded cut points.
    for (let i = 0; i < 6; i++) {
      const at = r.int(1, valid.length - 1);
      post(`the valid body cut at byte ${at}`, valid.slice(0, at));
    }
    // Seeded junk bytes, not UTF-8 and not JSON.
    for (let i = 0; i < 3; i++) post('random bytes', Buffer.from(r.many(1, 64, () => r.int(0, 255))));
    // Nesting deep enough to overflow a recursive parser or walker.
    lenient('arrays nested 100,000 deep', [
      '{"model":"{model}","messages":',
      { repeat: '[', times: 100_000 },
      { repeat: ']', times: 100_000 },
      '}',
    ]);
    lenient('objects nested 50,000 deep', [
      '{"model":"{model}","metadata":',
      { repeat: '{"a":', times: 50_000 },
      '1',
      { repeat: '}', times: 50_000 },
      '}',
    ]);
    // Text that is not UTF-8 inside a valid body: refused with the byte offset, not replaced and forwarded.
    const [head, tail] = [valid.slice(0, valid.indexOf('hi')), valid.slice(valid.indexOf('hi') + 2)];
    post('invalid UTF-8 in the prompt', [
      head,
      { b64: Buffer.from([0x68, 0xff, 0xfe, 0x69]).toString('base64') },
      tail,
    ]);
    // Each field of the valid body given a value of another type, or an out-of-range one.
    for (const field of Object.keys(body)) {
      const kind = typeof body[field];
      for (const wrong of WRONG_VALUES) {
        const value: unknown = JSON.parse(wrong);
        if (JSON.stringify(body[field]) === wrong || (typeof value === kind && !(kind === 'number' && value === -1)))
          continue;
        const text = valid.replace(`"${field}":${JSON.stringify(body[field])}`, `"${field}":${wrong}`);
        // An optional limit may be null, and a Responses input may be any text or list.
        const optional =
          (OPTIONAL[target].includes(field) && value === null) ||
          (field === 'input' && (typeof value === 'string' || Array.isArray(value)));
        if (optional) lenient(`"${field}": ${wrong}`, text);
        else post(`"${field}": ${wrong}`, text);
      }
      const { [field]: _dropped, ...rest } = body;
      // Responses may take its input from `previous_response_id` or a stored prompt instead.
      if (OPTIONAL[target].includes(field) || field === 'input') lenient(`"${field}" missing`, JSON.stringify(rest));
      else post(`"${field}" missing`, JSON.stringify(rest));
    }
    // Wrong framing of a right body: read as JSON whatever its label (some clients omit or
    // mislabel it), so these may be answered.
    lenient('content-type text/plain', valid, { 'content-type': 'text/plain' });
    lenient('content-type form', valid, { 'content-type': 'application/x-www-form-urlencoded' });
    lenient('content-type missing', valid, { 'content-type': null });
    lenient('gzip declared, not gzip', valid, { 'content-encoding': 'gzip' });
    lenient('an unknown content-encoding', valid, { 'content-encoding': 'zstd-unknown' });
    // Authentication.
    post('no credential', valid, {}, 'none');
    post('a wrong sk- key', valid, {}, 'wrong');
    post(
      'a bearer that is not an sk- key',
      valid,
      { authorization: 'Bearer not-a-key', 'x-api-key': 'not-a-key', 'x-goog-api-key': 'not-a-key' },
      'none',
    );
    post('an 8 KB key', valid, { authorization: `Bearer sk-${'a'.repeat(8_000)}` }, 'none');
    post('Basic auth', valid, { authorization: 'Basic dXNlcjpwYXNz' }, 'none');
    // A model no line serves (Gemini names it in the path: below).
    if (target !== 'gemini') post('an unknown model', valid.replaceAll('{model}', 'no-such-model-\u00e9'), {});
  }
  // Gemini names the model in the path.
  for (const path of [
    '/v1beta/models/:generateContent',
    '/v1beta/models/%00:generateContent',
    '/v1beta/models/{model}:unknownMethod',
    `/v1beta/models/${'m'.repeat(5000)}:generateContent`,
  ]) {
    add({
      target: 'gemini',
      method: 'POST',
      path,
      body: [JSON.stringify(VALID.gemini.body)],
      why: `path ${path.slice(0, 60)}`,
    });
  }

  const admin = (
    method: string,
    path: string,
    body: string | null,
    why: string,
    headers: Record<string, string | null> = {},
    auth: FuzzCase['auth'] = 'valid',
    expect: FuzzCase['expect'] = '4xx',
  ): void => add({ target: 'admin', method, path, body: body === null ? null : [body], headers, auth, why, expect });
  for (const text of [
    '',
    '{',
    '[]',
    'null',
    '"x"',
    '{"name":123}',
    '{"name":""}',
    `{"name":"${'n'.repeat(300)}"}`,
    '{"name":"a b/c"}',
    '{"name":"ok","extra":1}',
    '{"name":"ok","quotaMicro":-1}',
    '{"name":"ok","quotaMicro":1.5}',
    '{"name":"ok","expiresAt":"yesterday"}',
    '{"name":"ok","rpm":"many"}',
    '{"name":"ok","maxConcurrent":0}',
    '{"name":"ok","group":"no-such-group"}',
  ]) {
    admin('POST', '/api/keys', text, `create key ${text.slice(0, 50)}`);
  }
  for (const amount of ['"1000"', '-1', '0', '1.5', '1e300', 'null', 'true', '[]', '9007199254740993']) {
    admin('POST', '/api/wallet/topup', `{"amountMicro":${amount}}`, `top-up of ${amount}`);
  }
  admin(
    'POST',
    '/api/wallet/topup',
    '{"amountMicro":1000,"note":"' + 'x'.repeat(300) + '"}',
    'top-up with a 300-character note',
  );
  admin('POST', '/api/wallet/topup', '{}', 'top-up without an amount');
  for (const text of [
    '{}',
    '{"name":"l","baseUrl":"not a url","models":["gpt-4.1-mini"]}',
    '{"name":"l","protocol":"smtp","baseUrl":"http://127.0.0.1:1","models":["x"]}',
    '{"name":"l","baseUrl":"http://127.0.0.1:1","models":[]}',
    '{"name":"l","baseUrl":"http://127.0.0.1:1","models":["gpt-4.1-mini"],"timeouts":{"totalMs":-5}}',
    '{"preset":"no-such-preset"}',
  ]) {
    admin('POST', '/api/lines', text, `add line ${text.slice(0, 60)}`);
  }
  admin('PATCH', '/api/lines/no-such-line', '{"priority":1}', 'update a line that does not exist');
  admin('PATCH', '/api/lines/fuzz', '{"priority":"high"}', 'update a line with a wrong type');
  admin('DELETE', '/api/keys/no-such-key', null, 'delete a key that does not exist');
  admin('POST', '/api/keys/%00/disable', null, 'a NUL in a path parameter');
  for (const query of ['limit=abc', 'limit=-1', 'limit=1e9', 'before=yesterday', 'limit=', 'unknown=1']) {
    admin('GET', `/api/logs?${query}`, null, `logs ?${query}`, {}, 'valid', query === 'unknown=1' ? 'no-5xx' : '4xx');
  }
  admin('GET', '/api/logs?key=a&key=b', null, 'a repeated query parameter');
  admin('POST', '/api/keys', '{"name":"ok"}', 'no admin token', {}, 'none');
  admin('POST', '/api/keys', '{"name":"ok"}', 'a wrong admin token', {}, 'wrong');
  admin('POST', '/api/keys', '{"name":"ok"}', 'a foreign Host (DNS rebinding)', { host: 'evil.example:4141' });
  admin('POST', '/api/keys', '{"name":"ok"}', 'a cross-site browser request', {
    origin: 'https://evil.example',
    'sec-fetch-site': 'cross-site',
  });
  // Read as JSON like every body; a page cannot send it with the token, so this is no CSRF path.
  admin(
    'POST',
    '/api/keys',
    '{"name":"plain"}',
    'content-type text/plain, with the token',
    { 'content-type': 'text/plain' },
    'valid',
    'no-5xx',
  );
  admin('GET', '/api/no-such-route', null, 'an unknown admin route');
  return cases;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = new URL('./corpus.json', import.meta.url);
  const cases = generate(Number(process.env.TOLLGATE_SEED ?? 20261124));
  writeFileSync(out, JSON.stringify(cases, null, 1) + '\n');
  console.log(`${cases.length} cases → ${out.pathname}`);
}
