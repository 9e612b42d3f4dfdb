import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromError } from '../../../gateway/wire/gemini/from-error.js';

const body = (code: number, status: string, message: string, details: object[] = []) => ({
  error: { code, message, status, details },
});

test("Gemini's invalid-key 400 is the line's credential failing, not the client's request", () => {
  const err = fromError(
    400,
    body(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ]),
  );
  assert.deepEqual([err.kind, err.code, err.status], ['upstream_error', 'upstream_auth_failed', 502]);
  const plain = fromError(
    400,
    body(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified'),
  );
  assert.deepEqual([plain.kind, plain.code, plain.status], ['invalid_request', 'upstream_rejected', 400]);
  assert.match(plain.message, /contents is not specified/);
});

test('a 429 takes its delay from RetryInfo unless a retry-after header says otherwise', () => {
  const quota = body(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.', [
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7.2s' },
  ]);
  assert.deepEqual([fromError(429, quota).kind, fromError(429, quota).retryAfter], ['rate_limit', 8]);
  assert.equal(fromError(429, quota, '2').retryAfter, 2);
  assert.equal(fromError(429, body(429, 'RESOURCE_EXHAUSTED', 'slow')).retryAfter, 1);
});

test('other statuses map as for every upstream; a body that is not Gemini JSON still gives an error', () => {
  assert.equal(fromError(503, body(503, 'UNAVAILABLE', 'The model is overloaded.')).kind, 'upstream_unavailable');
  assert.equal(fromError(504, undefined).kind, 'upstream_timeout');
  assert.equal(fromError(404, 'not json').code, 'upstream_not_found');
});
