/** What an upstream's failure tells the client: error statuses, network failures, and where a request goes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errors as undiciErrors } from 'undici';
import { endpoint } from '../../gateway/upstream/client.js';
import {
  ClientClosedError,
  MAX_RETRY_AFTER_S,
  readUpstreamError,
  TotalTimeoutError,
  upstreamFailure,
  upstreamStatusError,
  UpstreamTimeoutError,
} from '../../gateway/upstream/errors.js';
import { fakeAnswer } from '../helpers/relay-fakes.js';

describe('upstreamStatusError', () => {
  test('a 429 keeps its retry-after (seconds or a date), 1 s when it has none', () => {
    assert.deepEqual(
      [upstreamStatusError(429, 'slow down', '7').retryAfter, upstreamStatusError(429, 'slow down', '7').code],
      [7, 'upstream_rate_limited'],
    );
    assert.equal(upstreamStatusError(429, undefined, undefined).retryAfter, 1);
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = upstreamStatusError(429, undefined, inTen).retryAfter!;
    assert.ok(fromDate >= 9 && fromDate <= 11, `retry after ${fromDate} s`);
  });

  test('a retry-after is capped at 10 minutes, in seconds or as a date', () => {
    assert.equal(upstreamStatusError(429, undefined, '99999999').retryAfter, MAX_RETRY_AFTER_S);
    assert.equal(upstreamStatusError(429, undefined, 'Thu, 01 Jan 2099 00:00:00 GMT').retryAfter, MAX_RETRY_AFTER_S);
    assert.equal(upstreamStatusError(429, undefined, '1e300').retryAfter, MAX_RETRY_AFTER_S);
    assert.equal(MAX_RETRY_AFTER_S, 600);
  });

  test("a rejected credential is the line's problem, and its message is not passed on", () => {
    for (const status of [401, 403]) {
      const e = upstreamStatusError(status, 'invalid x-api-key sk-ant-secret', undefined);
      assert.deepEqual([e.status, e.code], [502, 'upstream_auth_failed']);
      assert.doesNotMatch(e.message, /sk-ant/);
    }
  });

  test('each failure status maps to what a client can act on', () => {
    const map = (s: number) => {
      const e = upstreamStatusError(s, 'detail', undefined);
      return [e.status, e.code];
    };
    assert.deepEqual(map(400), [400, 'upstream_rejected']);
    assert.deepEqual(map(404), [502, 'upstream_not_found']);
    assert.deepEqual(map(408), [504, 'upstream_timeout']);
    assert.deepEqual(map(500), [502, 'upstream_error']);
    assert.deepEqual(map(503), [503, 'upstream_unavailable']);
    assert.deepEqual(map(529), [503, 'upstream_unavailable']);
    assert.match(upstreamStatusError(400, 'max_tokens is too large', undefined).message, /max_tokens is too large/);
  });
});

describe('upstreamFailure', () => {
  test('names who ended the exchange: the client, the total timeout, or the network', () => {
    assert.deepEqual(
      [upstreamFailure(new ClientClosedError()).status, upstreamFailure(new ClientClosedError()).code],
      [499, 'client_closed'],
    );
    const timedOut = new AbortController();
    timedOut.abort(new TotalTimeoutError(900));
    assert.equal(upstreamFailure(new Error('aborted'), timedOut.signal).code, 'upstream_timeout');
    assert.equal(upstreamFailure(UpstreamTimeoutError.firstByte(45_000, true)).code, 'upstream_timeout');
    assert.equal(upstreamFailure(UpstreamTimeoutError.idle(120_000)).code, 'upstream_idle_timeout');
    assert.equal(upstreamFailure(new undiciErrors.ConnectTimeoutError()).code, 'upstream_connect_timeout');
    assert.deepEqual(
      [
        upstreamFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })).status,
        upstreamFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })).code,
      ],
      [503, 'upstream_unreachable'],
    );
    assert.equal(
      upstreamFailure(Object.assign(new Error('x'), { cause: { code: 'ENOTFOUND' } })).code,
      'upstream_unreachable',
    );
    assert.equal(
      upstreamFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' })).code,
      'upstream_connection_error',
    );
  });
});

describe('readUpstreamError', () => {
  test("takes the message from the vendor's error body, or the text when it is not JSON", async () => {
    assert.match(
      (await readUpstreamError(fakeAnswer(400, JSON.stringify({ error: { message: 'bad temperature' } })))).message,
      /bad temperature/,
    );
    assert.match(
      (await readUpstreamError(fakeAnswer(400, JSON.stringify({ error: 'flat string' })))).message,
      /flat string/,
    );
    assert.match((await readUpstreamError(fakeAnswer(500, '<html>oops</html>'))).message, /<html>oops/);
  });

  test('reads retry-after from the headers, and lets the format read its own error bodies', async () => {
    assert.equal((await readUpstreamError(fakeAnswer(429, '{}', { headers: { 'retry-after': '12' } }))).retryAfter, 12);
    const seen: unknown[] = [];
    await readUpstreamError(fakeAnswer(400, '{"error":{"code":400}}'), (status, body, retryAfter) => {
      seen.push(status, body, retryAfter);
      return upstreamStatusError(status, undefined, retryAfter);
    });
    assert.deepEqual(seen, [400, { error: { code: 400 } }, undefined]);
  });
});

test("endpoint appends the format's path to the line's base URL, keeping both queries", () => {
  assert.equal(
    endpoint('https://api.example.com/v1', '/chat/completions').href,
    'https://api.example.com/v1/chat/completions',
  );
  assert.equal(endpoint('https://api.example.com/v1/', '/responses').href, 'https://api.example.com/v1/responses');
  assert.equal(
    endpoint('http://127.0.0.1:9/s/x', '/v1beta/models/m:streamGenerateContent?alt=sse').href,
    'http://127.0.0.1:9/s/x/v1beta/models/m:streamGenerateContent?alt=sse',
  );
});

describe('maskSecrets', () => {
  test('the line key, auth header values and key shapes are redacted; the rest of the text stays', async () => {
    const { maskSecrets } = await import('../../gateway/upstream/errors.js');
    assert.equal(maskSecrets('the key line-secret-42 was wrong', ['line-secret-42']), 'the key [redacted] was wrong');
    assert.equal(
      maskSecrets('Incorrect API key provided: sk-proj-abcdefgh1234.'),
      'Incorrect API key provided: [redacted].',
    );
    const echoed = maskSecrets(
      '{"authorization":"Bearer tok.en.value","x-api-key":"k-123456789","x-goog-api-key":"AIzaSyA1234567890abcdefghijk"}',
    );
    for (const s of ['tok.en.value', 'k-123456789', 'AIzaSyA1234567890abcdefghijk'])
      assert.ok(!echoed.includes(s), echoed);
    assert.match(echoed, /"x-api-key":"\[redacted\]"/);
    assert.equal(maskSecrets('model not found: gpt-9'), 'model not found: gpt-9');
  });

  test('an upstream error of any status, not only 401/403, is read masked', async () => {
    for (const status of [400, 404, 429, 500]) {
      const err = await readUpstreamError(
        fakeAnswer(
          status,
          JSON.stringify({ error: { message: 'you sent authorization: Bearer abcdef123456 with key abcdef123456' } }),
        ),
        undefined,
        ['abcdef123456'],
      );
      assert.ok(!err.message.includes('abcdef123456'), `${status}: ${err.message}`);
    }
  });
});
